/**
 * Reading the environment for config.ts: one reader that collects a line per
 * bad value, and the checks of values whose shape is more than a type.
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import { parseEnv } from 'node:util';

export type Env = Readonly<Record<string, string | undefined>>;

export interface ProcessEnvironment {
  readonly env: Env;
  /** The `.env` file read, when there was one. */
  readonly envFile: string | undefined;
}

/**
 * The process's environment over the `.env` file in the working directory
 * (SPEC §10; the project directory under `npm start`, `npm run dev` and
 * `npm run cli`): a variable set in the real environment wins over the file,
 * as with Node's `--env-file`. A missing file is no file; an unreadable one
 * is a configuration error naming it.
 */
export function readProcessEnvironment(cwd = process.cwd(), env: Env = process.env): ProcessEnvironment {
  const envFile = path.join(cwd, '.env');
  let text: string;
  try {
    text = readFileSync(envFile, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { env, envFile: undefined };
    throw new ConfigError([`${envFile} cannot be read: ${(error as Error).message}`]);
  }
  return { env: { ...parseEnv(text), ...definedOnly(env) }, envFile };
}

/** One line per bad value; the process prints it and exits non-zero. */
export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

function definedOnly(env: Env): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

/** Reads variables and collects one line per bad value. */
export class EnvReader {
  readonly problems: string[] = [];
  constructor(private readonly env: Env) {}

  text(name: string): string | undefined {
    const value = this.env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    const raw = this.text(name);
    if (raw === undefined) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      return this.refuse(`${name}=${JSON.stringify(raw)} must be a whole number from ${min} to ${max}`, fallback);
    }
    return Number(raw);
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const raw = this.text(name);
    if (raw === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(raw)) return this.refuse(`${name}=${JSON.stringify(raw)} must be one of: ${allowed.join(', ')}`, fallback);
    return raw as T;
  }

  url(name: string, protocols: readonly string[]): URL | undefined {
    const raw = this.text(name);
    if (raw === undefined) return undefined;
    const parsed = URL.canParse(raw) ? new URL(raw) : undefined;
    if (parsed && protocols.includes(parsed.protocol)) return parsed;
    return this.refuse(`${name}=${JSON.stringify(redactUrl(raw))} must be a ${protocols.join(' or ')} URL`, undefined);
  }

  refuse<T>(problem: string, fallback: T): T {
    this.problems.push(problem);
    return fallback;
  }
}

const PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/** What Fastify (proxy-addr) accepts, checked now instead of failing after migration. */
export function readTrustProxy(read: EnvReader): boolean | string {
  const raw = read.text('TRUST_PROXY');
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  const entries = raw.split(',').map((entry) => entry.trim());
  const bad = entries.find((entry) => !PROXY_NAMES.includes(entry) && !isAddressOrRange(entry));
  if (bad === undefined) return entries.join(',');
  return read.refuse(`TRUST_PROXY=${JSON.stringify(raw)} must be true, false or a comma-separated list of `
    + `IP addresses or CIDR ranges (${JSON.stringify(bad)} is none of these)`, false);
}

function isAddressOrRange(entry: string): boolean {
  const [address = '', range, ...rest] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  if (range === undefined) return true;
  if (/^\d{1,3}$/.test(range)) return Number(range) <= (version === 4 ? 32 : 128);
  return version === 4 && isIP(range) === 4; // an IPv4 netmask, e.g. 10.0.0.0/255.0.0.0
}

/** RFC 1123 host name: dot-separated labels of letters, digits and inner hyphens. */
/** A DNS host name (RFC 1123 §2.1); an all-numeric last label is none (`999.1.1.1` is a malformed IPv4 address, not a name). */
export function isHostName(value: string): boolean {
  const labels = value.split('.');
  return value.length <= 253
    && labels.every((label) => /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/.test(label))
    && !/^\d+$/.test(labels.at(-1)!);
}

export function isBase64Key(value: string): boolean {
  return /^[A-Za-z0-9+/_-]{43}=?$/.test(value) && Buffer.from(value, 'base64').length === 32;
}

export type MailSetting =
  | { readonly mode: 'smtp'; readonly smtpUrl: string; readonly from: string }
  | { readonly mode: 'outbox'; readonly dir: string; readonly from: string }
  | { readonly mode: 'off' };

/** An address (`a@b`) or a name and an address (`Foodsharing <a@b>`), on one line. */
const MAIL_FROM = /^([^\r\n<>]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/;

/**
 * `SMTP_URL` (smtp: or smtps:, credentials in the URL), `MAIL_FROM` (default
 * `noreply@<PUBLIC_URL host>`), `MAIL=off`; without SMTP_URL, the outbox
 * directory (config.ts refuses that in production). Messages never repeat the
 * URL's password.
 */
export function readMailSetting(read: EnvReader, publicUrl: string, dataDir: string): MailSetting {
  const off = read.oneOf('MAIL', ['on', 'off'], 'on') === 'off';
  const smtpUrl = read.url('SMTP_URL', ['smtp:', 'smtps:']) && read.text('SMTP_URL');
  const from = read.text('MAIL_FROM') ?? `noreply@${new URL(publicUrl).hostname}`;
  if (!MAIL_FROM.test(from)) read.refuse(`MAIL_FROM=${JSON.stringify(from)} must be an address (a@example.org) or a name and an address (Foodsharing <a@example.org>)`, undefined);
  if (off) return { mode: 'off' };
  if (smtpUrl !== undefined) return { mode: 'smtp', smtpUrl, from };
  return { mode: 'outbox', dir: path.join(dataDir, 'outbox'), from };
}

function redactUrl(raw: string): string {
  return raw.replace(/\/\/([^@/]*)@/, '//***@');
}
