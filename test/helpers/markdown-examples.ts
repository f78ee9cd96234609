/**
 * The fenced code blocks of README.md and docs/*.md, for the tests that run
 * them (test/docs/). A block is either run by a test, which takes it with
 * {@link exampleBlock} (file and a marker found in that block only), or
 * carries an annotation in an HTML comment on the line right before its
 * fence, invisible in the rendered Markdown:
 *
 *   <!-- example: output -->                output, a tree or a body shown for reading
 *   <!-- example: not run: REASON -->       a command no test can run, and why
 *
 * test/docs/examples-coverage.test.ts fails for a block that is neither.
 * Fences follow CommonMark: a closing fence is the opening's character, at
 * least as long, with nothing but spaces after it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The issuer and server the documents show: tests replace it by their server's URL. */
export const DOCUMENTED_URL = 'http://localhost:8080';

export type Annotation = { kind: 'output' } | { kind: 'not run'; reason: string };

export interface ExampleBlock {
  /** Relative to the checkout: `README.md`, `docs/oauth.md`. */
  readonly file: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly info: string;
  readonly text: string;
  readonly annotation?: Annotation;
}

const ANNOTATION = /^\s*<!--\s*example:\s*(.*?)\s*-->\s*$/;

/** The documents whose examples must run: README.md and docs/*.md. */
export function documentFiles(): string[] {
  const docs = readdirSync(path.join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).sort();
  return ['README.md', ...docs.map((name) => `docs/${name}`)];
}

function parseAnnotation(comment: string, where: string): Annotation {
  if (comment === 'output') return { kind: 'output' };
  const notRun = /^not run:\s*(\S.*)$/.exec(comment);
  if (notRun) return { kind: 'not run', reason: notRun[1]! };
  throw new Error(`${where}: unknown example annotation "${comment}" (output, or not run: REASON)`);
}

/** Every fenced block of one document, in order. */
export function blocksOf(file: string): ExampleBlock[] {
  const lines = readFileSync(path.join(ROOT, file), 'utf8').split('\n');
  const blocks: ExampleBlock[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const open = /^(\s*)(`{3,}|~{3,})(.*)$/.exec(lines[index]!);
    if (!open || (open[2]![0] === '`' && open[3]!.includes('`'))) continue;
    const [, indent, fence, info] = open as unknown as [string, string, string, string];
    const closing = new RegExp(`^\\s*${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`);
    const start = index;
    const body: string[] = [];
    for (index += 1; index < lines.length && !closing.test(lines[index]!); index += 1) {
      body.push(lines[index]!.startsWith(indent) ? lines[index]!.slice(indent.length) : lines[index]!.trimStart());
    }
    if (index >= lines.length) throw new Error(`${file}:${start + 1}: the fence is never closed`);
    const comment = ANNOTATION.exec(lines[start - 1] ?? '');
    const where = `${file}:${start + 1}`;
    blocks.push({
      file, line: start + 1, info: info.trim(), text: `${body.join('\n')}\n`,
      ...(comment ? { annotation: parseAnnotation(comment[1]!, where) } : {}),
    });
  }
  return blocks;
}

export function allBlocks(): ExampleBlock[] {
  return documentFiles().flatMap(blocksOf);
}

/** The one block of `file` that contains `marker`; throws when none or several do. A test that runs a block takes it here. */
export function exampleBlock(file: string, marker: string): ExampleBlock {
  const found = blocksOf(file).filter((block) => block.text.includes(marker));
  if (found.length !== 1) {
    throw new Error(`${file}: ${found.length} blocks contain ${JSON.stringify(marker)}${found.map((b) => ` (line ${b.line})`).join('')}; a claim names exactly one`);
  }
  if (found[0]!.annotation) throw new Error(`${file}:${found[0]!.line} is annotated "${found[0]!.annotation.kind}" but run by a test`);
  return found[0]!;
}

/** The `<!-- example: output -->` block right after `block`: what the document shows it prints. */
export function shownOutput(block: ExampleBlock): ExampleBlock {
  const blocks = blocksOf(block.file);
  const next = blocks[blocks.findIndex((b) => b.line === block.line) + 1];
  if (next?.annotation?.kind !== 'output') throw new Error(`${block.file}:${block.line}: the next block is no <!-- example: output -->`);
  return next;
}

/** The block's text with the documented server's URL replaced by `baseUrl`. */
export function againstServer(block: ExampleBlock, baseUrl: string): string {
  return block.text.replaceAll(DOCUMENTED_URL, baseUrl);
}
