/**
 * Passwords, tokens and client secrets never come from an argument (they would show in `ps` and the shell
 * history): the first line of standard input when it is a pipe or a file, or
 * typed at a prompt without echo when it is a terminal.
 */
import { RefusedInput } from './command.ts';

export interface PasswordSource extends AsyncIterable<unknown> {
  readonly isTTY?: boolean;
  setRawMode?(mode: boolean): unknown;
  on(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  off(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  resume(): unknown;
  pause(): unknown;
}

export async function readPassword(input: PasswordSource, prompt: (text: string) => void, label: string): Promise<string> {
  if (input.isTTY && input.setRawMode) {
    const first = await typeHidden(input, prompt, `${label}: `);
    const second = await typeHidden(input, prompt, `${label} (again): `);
    if (first !== second) throw new RefusedInput('the two passwords differ');
    return first;
  }
  const line = await firstLine(input);
  if (line === undefined) throw new RefusedInput(`no password on standard input (pipe it in, e.g. printf '%s\\n' "$PASSWORD" | …)`);
  return line;
}

/**
 * A token or client secret: the first line of standard input, or typed once
 * without echo at a terminal (it is pasted, not chosen: no second entry).
 */
export async function readSecret(input: PasswordSource, prompt: (text: string) => void, label: string, example: string): Promise<string> {
  const line = await readSecretLine(input, prompt, `${label}: `);
  if (line === '') throw new RefusedInput(`no ${label} on standard input (pipe it in, e.g. printf '%s\\n' "$${example}" | …)`);
  return line;
}

/** The same, where nothing (an empty line, no input) is an answer: '' */
export async function readSecretLine(input: PasswordSource, prompt: (text: string) => void, question: string): Promise<string> {
  const line = input.isTTY && input.setRawMode ? await typeHidden(input, prompt, question) : await firstLine(input);
  return (line ?? '').trim();
}

/** Up to the first line break; does not wait for the end of a pipe that stays open. */
async function firstLine(input: AsyncIterable<unknown>): Promise<string | undefined> {
  let text = '';
  for await (const chunk of input) {
    text += String(chunk);
    if (text.includes('\n')) break;
  }
  const end = text.indexOf('\n');
  const line = (end === -1 ? text : text.slice(0, end)).replace(/\r$/, '');
  return end === -1 && line === '' ? undefined : line;
}

function typeHidden(input: PasswordSource, prompt: (text: string) => void, question: string): Promise<string> {
  prompt(question);
  input.setRawMode!(true);
  input.resume();
  return new Promise((resolve, reject) => {
    let typed = '';
    const finish = (error?: Error) => {
      input.off('data', onData);
      input.setRawMode!(false);
      input.pause();
      prompt('\n');
      if (error) reject(error);
      else resolve(typed);
    };
    const onData = (chunk: Buffer | string) => {
      for (const char of String(chunk)) {
        if (char === '\r' || char === '\n') return finish();
        if (char === '\u0003' || char === '\u0004') return finish(new RefusedInput('cancelled'));
        if (char === '\u007f' || char === '\b') typed = typed.slice(0, -1);
        else typed += char;
      }
    };
    input.on('data', onData);
  });
}
