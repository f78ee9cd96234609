/**
 * Every fenced block of README.md and docs/*.md is run by a test, or says why
 * not: a test file claims a block by calling `exampleBlock('FILE', 'MARKER')`
 * (test/helpers/markdown-examples.ts) with literal strings, which this test
 * reads from the test sources; any other block carries `<!-- example: output -->`
 * or `<!-- example: not run: REASON -->` on the line before its fence. A new
 * example that nothing runs fails here with its file and line.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { allBlocks, exampleBlock, ROOT, type ExampleBlock } from '../helpers/markdown-examples.ts';

interface Claim { testFile: string; file: string; marker: string }

function testFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return testFiles(relative);
    return entry.name.endsWith('.test.ts') ? [relative] : [];
  });
}

function claims(): Claim[] {
  return testFiles('test').filter((testFile) => testFile !== 'test/docs/examples-coverage.test.ts').flatMap((testFile) => {
    const source = readFileSync(path.join(ROOT, testFile), 'utf8');
    return [...source.matchAll(/exampleBlock\(\s*'([^']+)',\s*'((?:[^'\\]|\\.)*)'\s*\)/g)]
      .map((match) => ({ testFile, file: match[1]!, marker: match[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c)) }));
  });
}

const where = (block: ExampleBlock) => `${block.file}:${block.line}`;

describe('the examples of README.md and docs/*.md', () => {
  const blocks = allBlocks();
  const found = claims();

  test('the documents hold fenced blocks and the runners claim some (the scan itself works)', () => {
    expect(blocks.length).toBeGreaterThan(20);
    expect(found.map((claim) => claim.file)).toContain('README.md');
  });

  test('every claim names exactly one block, which carries no annotation', () => {
    for (const claim of found) expect(() => exampleBlock(claim.file, claim.marker), `${claim.testFile}`).not.toThrow();
  });

  test('every block is run by a test or annotated with a reason', () => {
    const claimed = new Set(found.map((claim) => where(exampleBlock(claim.file, claim.marker))));
    const neither = blocks.filter((block) => !block.annotation && !claimed.has(where(block))).map(where);
    expect(neither, 'blocks neither run by a test (exampleBlock) nor annotated <!-- example: output --> / <!-- example: not run: REASON -->').toEqual([]);
  });

  test('no block swallowed the next one (a fence line with text after it does not close a block)', () => {
    const swallowing = blocks.filter((block) => block.text.split('\n').some((line) => /^\s*(```|~~~)/.test(line))).map(where);
    expect(swallowing).toEqual([]);
  });
});
