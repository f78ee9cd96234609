/** The error page for everything outside `/api` and the OAuth JSON endpoints. */
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/fixture.ts';

const t = useTestApp();

describe('error pages', () => {
  it('renders an HTML error page for unknown pages', async () => {
    const response = await t.app.inject({ url: '/no-such-page', headers: { 'accept-language': 'de' } });
    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.body).toContain('Diese Seite gibt es nicht.');
  });
});
