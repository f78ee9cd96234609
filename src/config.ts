/**
 * The only reader of `process.env` (SPEC §3). Every variable is parsed and
 * validated here; a bad value yields one clear line per problem and the caller
 * exits non-zero. The result is frozen and passed explicitly to whoever needs it.
 */
import path from 'node:path';

export interface Config {
  readonly port: number;
  readonly host: string;
  /** The OAuth issuer and base of every absolute URL; never taken from a request's Host header. */
  readonly publicUrl: string;
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  readonly nodeEnv: 'development' | 'production' | 'test';
  readonly isProduction: boolean;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  readonly oauthPrivateKey: string | undefined;
  readonly oauthPrivateKeyFile: string | undefined;
  readonly oauthEncryptionKey: string | undefined;
  readonly oauthEncryptionKeyFile: string | undefined;
  readonly rsaKeyBits: number;
  readonly trustProxy: boolean | string;
  readonly petitionSourceUrl: string | undefined;
  readonly vapidPublicKey: string | undefined;
  readonly vapidPrivateKey: string | undefined;
  readonly uploadDir: string;
  readonly maxUploadBytes: number;
  /** Seconds a just-rotated refresh token may still be presented (retry grace period). */
  readonly refreshGraceSeconds: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Env = Readonly<Record<string, string | undefined>>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const NODE_ENVS = ['development', 'production', 'test'] as const;

/** Names of every variable read; `.env.example` lists the same set. */
export const CONFIG_VARIABLES = [
  'PORT', 'HOST', 'PUBLIC_URL', 'DATABASE_URL', 'DATA_DIR', 'NODE_ENV', 'LOG_LEVEL',
  'OAUTH_PRIVATE_KEY', 'OAUTH_PRIVATE_KEY_FILE', 'OAUTH_ENCRYPTION_KEY', 'OAUTH_ENCRYPTION_KEY_FILE',
  'RSA_KEY_BITS', 'TRUST_PROXY', 'PETITION_SOURCE_URL', 'VAPID_PUBLIC_KEY', 'VAPID_PRIVATE_KEY',
  'UPLOAD_DIR', 'MAX_UPLOAD_BYTES', 'REFRESH_TOKEN_GRACE_SECONDS',
] as const;

/** Parses and validates the environment. Throws {@link ConfigError} listing every bad value. */
export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const read = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      problems.push(`${name}=${JSON.stringify(raw)} must be a whole number from ${min} to ${max}`);
      return fallback;
    }
    return Number(raw);
  };
  const oneOf = <T extends string>(name: string, allowed: readonly T[], fallback: T): T => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(raw)) {
      problems.push(`${name}=${JSON.stringify(raw)} must be one of: ${allowed.join(', ')}`);
      return fallback;
    }
    return raw as T;
  };
  const url = (name: string, protocols: readonly string[]): string | undefined => {
    const raw = read(name);
    if (raw === undefined) return undefined;
    try {
      const parsed = new URL(raw);
      if (!protocols.includes(parsed.protocol)) throw new Error('protocol');
      return raw;
    } catch {
      problems.push(`${name}=${JSON.stringify(redactUrl(raw))} must be a ${protocols.join(' or ')} URL`);
      return undefined;
    }
  };

  const port = integer('PORT', 8080, 0, 65535);
  const host = read('HOST') ?? '0.0.0.0';
  const nodeEnv = oneOf('NODE_ENV', NODE_ENVS, 'development');
  const isProduction = nodeEnv === 'production';
  const logLevel = oneOf('LOG_LEVEL', LOG_LEVELS, nodeEnv === 'test' ? 'silent' : 'info');
  const databaseUrl = url('DATABASE_URL', ['postgres:', 'postgresql:']);
  const publicUrlRaw = url('PUBLIC_URL', ['http:', 'https:']);
  let publicUrl = (publicUrlRaw ?? `http://localhost:${port}`).replace(/\/+$/, '');
  if (publicUrlRaw !== undefined) {
    const parsed = new URL(publicUrlRaw);
    if (parsed.search !== '' || parsed.hash !== '') {
      problems.push('PUBLIC_URL must not carry a query or fragment');
      publicUrl = `http://localhost:${port}`;
    }
  }
  const dataDir = path.resolve(read('DATA_DIR') ?? './data');
  const rsaKeyBits = integer('RSA_KEY_BITS', 2048, 2048, 8192);
  if (rsaKeyBits % 1024 !== 0) problems.push(`RSA_KEY_BITS=${rsaKeyBits} must be a multiple of 1024`);
  const maxUploadBytes = integer('MAX_UPLOAD_BYTES', 1_572_864, 1, 100 * 1024 * 1024);
  const refreshGraceSeconds = integer('REFRESH_TOKEN_GRACE_SECONDS', 30, 0, 600);

  const oauthPrivateKey = read('OAUTH_PRIVATE_KEY');
  const oauthPrivateKeyFile = read('OAUTH_PRIVATE_KEY_FILE');
  if (oauthPrivateKey !== undefined && oauthPrivateKeyFile !== undefined) {
    problems.push('set only one of OAUTH_PRIVATE_KEY and OAUTH_PRIVATE_KEY_FILE');
  }
  if (oauthPrivateKey !== undefined && !oauthPrivateKey.includes('PRIVATE KEY')) {
    problems.push('OAUTH_PRIVATE_KEY must be a PEM-encoded RSA private key');
  }
  const oauthEncryptionKey = read('OAUTH_ENCRYPTION_KEY');
  const oauthEncryptionKeyFile = read('OAUTH_ENCRYPTION_KEY_FILE');
  if (oauthEncryptionKey !== undefined && oauthEncryptionKeyFile !== undefined) {
    problems.push('set only one of OAUTH_ENCRYPTION_KEY and OAUTH_ENCRYPTION_KEY_FILE');
  }
  if (oauthEncryptionKey !== undefined && !isBase64Key(oauthEncryptionKey)) {
    problems.push('OAUTH_ENCRYPTION_KEY must be 32 bytes in base64 or base64url (openssl rand -base64 32)');
  }

  const vapidPublicKey = read('VAPID_PUBLIC_KEY');
  const vapidPrivateKey = read('VAPID_PRIVATE_KEY');
  if ((vapidPublicKey === undefined) !== (vapidPrivateKey === undefined)) {
    problems.push('set both VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY, or neither');
  }

  if (isProduction) {
    if (databaseUrl === undefined) problems.push('NODE_ENV=production requires DATABASE_URL (PostgreSQL)');
    if (!publicUrl.startsWith('https://')) problems.push('NODE_ENV=production requires an https PUBLIC_URL');
  }

  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze({
    port,
    host,
    publicUrl,
    databaseUrl,
    dataDir,
    nodeEnv,
    isProduction,
    logLevel,
    oauthPrivateKey,
    oauthPrivateKeyFile: oauthPrivateKeyFile && path.resolve(oauthPrivateKeyFile),
    oauthEncryptionKey,
    oauthEncryptionKeyFile: oauthEncryptionKeyFile && path.resolve(oauthEncryptionKeyFile),
    rsaKeyBits,
    trustProxy: parseTrustProxy(read('TRUST_PROXY')),
    petitionSourceUrl: url('PETITION_SOURCE_URL', ['http:', 'https:']),
    vapidPublicKey,
    vapidPrivateKey,
    uploadDir: path.resolve(read('UPLOAD_DIR') ?? path.join(dataDir, 'uploads')),
    maxUploadBytes,
    refreshGraceSeconds,
  });
}

function parseTrustProxy(raw: string | undefined): boolean | string {
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  return raw; // a comma-separated list of addresses/CIDRs, as Fastify accepts
}

function isBase64Key(value: string): boolean {
  return /^[A-Za-z0-9+/_-]{43}=?$/.test(value) && Buffer.from(value, 'base64').length === 32;
}

function redactUrl(raw: string): string {
  return raw.replace(/\/\/([^@/]*)@/, '//***@');
}
