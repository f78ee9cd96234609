import { describe, expect, it } from 'vitest';
import { isInRequiredRegions } from './required-regions.ts';

describe('isInRequiredRegions (SPEC §5.2 step 5)', () => {
  it.each([
    ['no required region admits a user of no region', [], [], true],
    ['no required region admits a user of some region', [], [3], true],
    ['membership in the one required region', [3], [3], true],
    ['membership in any one of several', [3, 4, 5], [5], true],
    ['membership elsewhere only', [3, 4], [7], false],
    ['no membership at all', [3], [], false],
  ])('%s', (_name, required, memberOf, expected) => {
    expect(isInRequiredRegions(required, new Set(memberOf))).toBe(expected);
  });
});
