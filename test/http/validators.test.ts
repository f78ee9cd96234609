/**
 * Validators are compiled on a route's first request (http/validation.ts `compiledOnFirstUse`), not at
 * start. So that no schema can fail a member's request instead of the start, this compiles every
 * validator of the whole application — the OAuth endpoints, the pages and every `/api` operation.
 * (Every other test file validates through validators compiled on first use.)
 */
import { describe, expect, it } from 'vitest';
import { compilePendingValidators } from '../../src/http/validation.ts';
import { useTestApp } from '../helpers/fixture.ts';

const t = useTestApp();

describe('request validators', () => {
  it('every schema of the application compiles', () => {
    expect(t.app.printRoutes().length).toBeGreaterThan(0);
    expect(compilePendingValidators()).toBeGreaterThan(100);
    expect(compilePendingValidators()).toBe(0);
  });
});
