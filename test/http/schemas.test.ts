/**
 * Validators and response serialisers are compiled on first use (http/compile-on-first-use.ts), not
 * at start. So that no schema can fail a member's request instead of the start, this compiles every
 * one of the whole application — the OAuth endpoints, the pages and every `/api` operation. (Every
 * other test file validates and serialises through schemas compiled on first use.)
 */
import { describe, expect, it } from 'vitest';
import { compilePending } from '../../src/http/compile-on-first-use.ts';
import { useTestApp } from '../helpers/fixture.ts';

const t = useTestApp();

describe('request and response schemas', () => {
  it('every schema of the application compiles', () => {
    expect(t.app.printRoutes().length).toBeGreaterThan(0);
    expect(compilePending()).toBeGreaterThan(200);
    expect(compilePending()).toBe(0);
  });
});
