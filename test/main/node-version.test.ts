/**
 * The supported Node.js versions: 22 and 24 (README). Node 20 reached its end
 * of life in April 2026; `engines` asks for 22 or later, and CI (.ci/run) runs on 24,
 * fetching it from the registry where the machine's node is older.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { nodeVersionNotice, OLDEST_SUPPORTED_NODE } from '../../src/startup.ts';

const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { engines: { node: string } };
const major = Number(process.versions.node.split('.')[0]);

describe('Node.js version', () => {
  it('package.json requires Node 22 or later', () => {
    expect(manifest.engines.node).toBe('>=22');
    expect(manifest.engines.node).toBe(`>=${OLDEST_SUPPORTED_NODE}`);
  });

  it('a server started on a Node past its end of life says so at every start, at error level in production', () => {
    const message = 'Node.js v20.20.2 is past its end of life and gets no security fixes; this server supports the long-term support releases Node.js 22 and 24 (README).';
    expect(nodeVersionNotice({ isProduction: false }, 'v20.20.2')).toEqual({ level: 'warn', message });
    expect(nodeVersionNotice({ isProduction: true }, 'v20.20.2')).toEqual({ level: 'error', message });
    expect(nodeVersionNotice({ isProduction: true }, 'v22.0.0')).toBeUndefined();
    expect(nodeVersionNotice({ isProduction: false }, 'v24.22.3')).toBeUndefined();
    expect(nodeVersionNotice({ isProduction: false }, process.version)).toBeUndefined();
    expect(nodeVersionNotice({ isProduction: false }, 'v25.1.0')).toEqual({ level: 'warn', message: 'Node.js v25.1.0 is an odd-numbered release, without long-term support: '
      + 'its security fixes end months after it came out; this server supports the long-term support releases Node.js 22 and 24 (README).' });
    expect(nodeVersionNotice({ isProduction: false }, 'v26.0.0')).toBeUndefined();
  });

  it('the tests run on a supported Node (24 under CI)', () => {
    expect(major).toBeGreaterThanOrEqual(22);
    if (process.env.CI === 'true') expect(major).toBe(24);
  });
});
