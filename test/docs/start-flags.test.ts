/**
 * The `node` flags that size the server's heap are given by `npm start`; the
 * deployment lines of the documentation that start `dist/main.js` themselves
 * must give the same ones, or a server deployed as documented runs with a heap
 * sized for the machine instead (docs/performance.md, "Memory").
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { startFlags } from '../../bench/server-process.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('the flags of npm start', () => {
  test('size the heap', () => {
    expect(startFlags()).toEqual(['--max-semi-space-size=8', '--max-old-space-size=1024']);
  });

  test('are given wherever the documentation starts dist/main.js with node', () => {
    const flags = startFlags().join(' ');
    const lines = ['README.md', 'docs/architecture.md', 'docs/performance.md', 'docs/security.md']
      .flatMap((file) => readFileSync(path.join(ROOT, file), 'utf8').split('\n').map((line, i) => ({ where: `${file}:${i + 1}`, line })))
      .filter(({ line }) => /\bnode(?: --[\w-]+(?:=\S+)?)* dist\/main\.js/.test(line) || /NODE='node/.test(line));
    expect(lines.length).toBeGreaterThanOrEqual(3);
    for (const { where, line } of lines) expect(line, where).toContain(`node ${flags}`);
  });
});
