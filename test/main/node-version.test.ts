/**
 * The supported Node.js versions: 22 and 24 (README). Node 20 reached its end
 * of life in April 2026; `engines` asks for 22 or later, and CI (.ci/run) runs on 24,
 * fetching it from the registry where the machine's node is older.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { engines: { node: string } };
const major = Number(process.versions.node.split('.')[0]);

describe('Node.js version', () => {
  it('package.json requires Node 22 or later', () => {
    expect(manifest.engines.node).toBe('>=22');
  });

  it('the tests run on a supported Node (24 under CI)', () => {
    expect(major).toBeGreaterThanOrEqual(22);
    if (process.env.CI === 'true') expect(major).toBe(24);
  });
});
