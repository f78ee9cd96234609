/**
 * Runs a documented Node script as a reader would: written to a file in the
 * shell's directory under the checkout's tmp/ (so that `import 'openid-client'`
 * resolves as in an application that installed it), with the documented
 * server's URL replaced by the test server's, and run by node. A script that
 * asks "paste the URL you land on" gets its answer from `answer`.
 */
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { againstServer, type ExampleBlock } from '../helpers/markdown-examples.ts';

export interface NodeRun { code: number | null; out: string; err: string }

/** Runs `file` with node in its directory; `answer` gets the output so far and returns what to type, once. */
export function runNode(file: string, answer: (out: string) => Promise<string | undefined> = async () => undefined): Promise<NodeRun> {
  const child = spawn(process.execPath, [file], { cwd: path.dirname(file), stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  let answered = false;
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    if (answered) return;
    void answer(out).then((typed) => {
      if (typed === undefined || answered) return;
      answered = true;
      child.stdin.end(`${typed}\n`);
    }, (error: unknown) => {
      err += `the test's answer failed: ${String(error)}\n`;
      child.kill();
    });
  });
  child.stderr.on('data', (chunk: Buffer) => { err += chunk.toString(); });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out, err })));
}

/** Writes the block, against `baseUrl`, to `name` in `dir` (after `edit`, for a variant); returns its path. */
export async function writeScript(dir: string, name: string, block: ExampleBlock, baseUrl: string, edit: (text: string) => string = (text) => text): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, edit(againstServer(block, baseUrl)));
  return file;
}

/**
 * The answer for a script that prints "… paste the URL you land on:\n URL"
 * and then asks "Callback URL: ": `signIn` takes the authorization URL and
 * returns the URL the browser lands on.
 */
export function pasteCallback(signIn: (authorizationUrl: string) => Promise<string>): (out: string) => Promise<string | undefined> {
  return async (out) => {
    const url = /paste the URL you land on:\n (\S+)\n/.exec(out)?.[1];
    if (url === undefined || !out.includes('Callback URL: ')) return undefined;
    return signIn(url);
  };
}
