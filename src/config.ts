/**
 * The only reader of `process.env` (SPEC §3). Every variable is parsed and
 * validated here; a bad value yields one clear line per problem and the caller
 * exits non-zero. The result is frozen and passed explicitly to whoever needs it.
 * Key files are read and checked by `loadKeyMaterial`, still before the database opens.
 */
import { isIP } from 'node:net';
import path from 'node:path';
import { ROLE_NAMES, ROLES, type RoleName } from './accounts/roles.ts';
import { ConfigError, EnvReader, isBase64Key, isHostName, readMailSetting, readTrustProxy, type Env, type MailSetting } from './config-reader.ts';

export interface Config {
  readonly port: number;
  readonly host: string;
  /** The OAuth issuer and base of every absolute URL; never taken from a request's Host header. */
  readonly publicUrl: string;
  readonly databaseUrl: string | undefined;
  /** PostgreSQL: connect timeout and statement_timeout; an unanswered query fails as unavailable a second later. */
  readonly databaseTimeoutSeconds: number;
  /** When set, the failed-login counters live in this Redis instead of PostgreSQL. */
  readonly redisUrl: string | undefined;
  readonly dataDir: string;
  readonly nodeEnv: 'development' | 'production' | 'test';
  readonly isProduction: boolean;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** `json` (one object per line), `pretty` (pino-pretty), or `auto`: pretty on a terminal outside production. */
  readonly logFormat: 'auto' | 'json' | 'pretty';
  readonly oauthPrivateKey: string | undefined;
  readonly oauthPrivateKeyFile: string | undefined;
  readonly oauthEncryptionKey: string | undefined;
  readonly oauthEncryptionKeyFile: string | undefined;
  readonly rsaKeyBits: number;
  /** false, true, or a comma-separated list of proxy addresses/CIDRs (as Fastify takes it). */
  readonly trustProxy: boolean | string;
  /** Seconds within which a whole request (headers and body) must arrive. */
  readonly requestTimeoutSeconds: number;
  /** Open connections at most; further ones are closed on accept. */
  readonly maxConnections: number;
  /** Open connections at most from one client address (the socket's, never a forwarded one; IPv6 by /64). */
  readonly maxConnectionsPerAddress: number;
  /** When set, `GET /metrics` (Prometheus) answers requests bearing it; unset, there is no such route. */
  readonly metricsToken: string | undefined;
  readonly petitionSourceUrl: string | undefined;
  /** Whether the petition source (and its redirects) may be on loopback or a private network. */
  readonly petitionAllowPrivate: boolean;
  readonly vapidPublicKey: string | undefined;
  readonly vapidPrivateKey: string | undefined;
  readonly maxUploadBytes: number;
  /** Seconds a just-rotated refresh token may still be presented (retry grace period). */
  readonly refreshGraceSeconds: number;
  /** RFC 9126 §5: every client must push its authorization requests (/oauth/par). */
  readonly requirePushedAuthorizationRequests: boolean;
  /** RFC 9449 §8: every DPoP proof must carry a nonce of this server (`use_dpop_nonce` otherwise). */
  readonly dpopNonceRequired: boolean;
  /** Seconds between two looks of an instance at the queue of back-channel logout notices. */
  readonly backchannelLogoutPollSeconds: number;
  /** Days a security event stays in the audit log (`security_events`) before the scheduled purge deletes it. */
  readonly auditRetentionDays: number;
  /** Production starts although demo accounts or the demo client still have their published credentials (startup.ts). */
  readonly allowDemoInProduction: boolean;
  /** Variables set in the environment that this version no longer reads (main.ts logs each). */
  readonly ignoredVariables: readonly IgnoredVariable[];
  /** How mail leaves: `smtp` (SMTP_URL), `outbox` (.eml files in DATA_DIR/outbox, outside production), or `off` (MAIL=off). */
  readonly mail: MailSetting;
  /** REQUIRE_SECOND_FACTOR: the roles (numbers, accounts/roles.ts) whose members must have a passkey or one-time codes. */
  readonly requireSecondFactor: readonly number[];
}

export type { MailSetting };

export interface IgnoredVariable {
  readonly name: string;
  readonly reason: string;
}

export { ConfigError, readProcessEnvironment } from './config-reader.ts';


const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const NODE_ENVS = ['development', 'production', 'test'] as const;
const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;

/** Names of every variable read; `.env.example` lists the same set. */
export const CONFIG_VARIABLES = [
  'PORT', 'HOST', 'PUBLIC_URL', 'DATABASE_URL', 'DATA_DIR', 'NODE_ENV', 'LOG_LEVEL', 'LOG_FORMAT',
  'OAUTH_PRIVATE_KEY', 'OAUTH_PRIVATE_KEY_FILE', 'OAUTH_ENCRYPTION_KEY', 'OAUTH_ENCRYPTION_KEY_FILE',
  'RSA_KEY_BITS', 'TRUST_PROXY', 'PETITION_SOURCE_URL', 'PETITION_ALLOW_PRIVATE', 'VAPID_PUBLIC_KEY', 'VAPID_PRIVATE_KEY',
  'MAX_UPLOAD_BYTES', 'REFRESH_TOKEN_GRACE_SECONDS', 'REQUEST_TIMEOUT_SECONDS', 'MAX_CONNECTIONS',
  'DATABASE_TIMEOUT_SECONDS', 'METRICS_TOKEN', 'REDIS_URL', 'BACKCHANNEL_LOGOUT_POLL_SECONDS', 'ALLOW_DEMO_IN_PRODUCTION',
  'MAX_CONNECTIONS_PER_ADDRESS', 'REQUIRE_PUSHED_AUTHORIZATION_REQUESTS', 'DPOP_NONCE_REQUIRED', 'AUDIT_RETENTION_DAYS',
  'SMTP_URL', 'MAIL_FROM', 'MAIL', 'REQUIRE_SECOND_FACTOR',
] as const;

/**
 * Variables once documented and no longer read. Set, they are logged as
 * ignored rather than refused: a deployment's environment keeps working.
 */
const RETIRED_VARIABLES: Readonly<Record<string, string>> = {
  UPLOAD_DIR: 'uploads are stored in the database, where every instance finds them',
};

/** Parses and validates the environment. Throws {@link ConfigError} listing every bad value. */
export function loadConfig(env: Env = process.env): Config {
  const read = new EnvReader(env);
  const runtime = readRuntime(read);
  const http = readHttp(read, runtime.isProduction);
  const storage = readStorage(read);
  const keys = readKeySettings(read);
  const api = readApiSettings(read);
  const mail = readMailSetting(read, http.publicUrl, storage.dataDir);
  const requireSecondFactor = readRequiredSecondFactor(read, runtime.isProduction);
  if (runtime.isProduction) checkProduction(read, storage.databaseUrl, http.publicUrl, mail);
  if (read.problems.length > 0) throw new ConfigError(read.problems);
  const ignoredVariables = Object.entries(RETIRED_VARIABLES)
    .filter(([name]) => read.text(name) !== undefined).map(([name, reason]) => ({ name, reason }));
  return Object.freeze({ ...runtime, ...http, ...storage, ...keys, ...api, mail, requireSecondFactor, ignoredVariables });
}

function readRuntime(read: EnvReader) {
  const nodeEnv = read.oneOf('NODE_ENV', NODE_ENVS, 'development');
  const logLevel = read.oneOf('LOG_LEVEL', LOG_LEVELS, nodeEnv === 'test' ? 'silent' : 'info');
  const logFormat = read.oneOf('LOG_FORMAT', LOG_FORMATS, 'auto');
  const allowDemoInProduction = read.oneOf('ALLOW_DEMO_IN_PRODUCTION', ['true', 'false'], 'false') === 'true';
  return { nodeEnv, isProduction: nodeEnv === 'production', logLevel, logFormat, allowDemoInProduction };
}

function readHttp(read: EnvReader, isProduction: boolean) {
  const port = read.integer('PORT', 8080, 0, 65535);
  const host = read.text('HOST') ?? '0.0.0.0';
  if (!isIP(host) && !isHostName(host)) read.refuse(`HOST=${JSON.stringify(host)} must be an IP address or a host name`, undefined);
  const fallbackUrl = `http://localhost:${port}`;
  const parsed = read.url('PUBLIC_URL', ['http:', 'https:']);
  let publicUrl = fallbackUrl;
  if (parsed && (parsed.search !== '' || parsed.hash !== '')) read.refuse('PUBLIC_URL must not carry a query or fragment', undefined);
  // Every route answers at the root: a path would make discovery advertise endpoints that answer 404,
  // and a user name or password would be published as part of the issuer.
  else if (parsed && parsed.pathname.replace(/\/+$/, '') !== '') read.refuse('PUBLIC_URL must not carry a path: the server answers at the root of its host (put a path prefix in a proxy in front of it)', undefined);
  else if (parsed && (parsed.username !== '' || parsed.password !== '')) read.refuse('PUBLIC_URL must not carry a user name or password', undefined);
  else if (parsed) publicUrl = read.text('PUBLIC_URL')!.replace(/\/+$/, '');
  return {
    port, host, publicUrl, trustProxy: readTrustProxy(read),
    requestTimeoutSeconds: read.integer('REQUEST_TIMEOUT_SECONDS', 30, 1, 3600),
    maxConnections: read.integer('MAX_CONNECTIONS', 1024, 1, 1_000_000),
    maxConnectionsPerAddress: read.integer('MAX_CONNECTIONS_PER_ADDRESS', 64, 1, 1_000_000),
    metricsToken: readMetricsToken(read, isProduction),
  };
}

function readMetricsToken(read: EnvReader, isProduction: boolean): string | undefined {
  const token = read.text('METRICS_TOKEN');
  if (token !== undefined && !/^[\x21-\x7e]{16,}$/.test(token)) {
    return read.refuse('METRICS_TOKEN must be at least 16 printable ASCII characters without spaces', undefined);
  }
  // A placeholder (`aaaaaaaaaaaaaaaa`, `1212121212121212`, `abcabcabcabcabca`) guards nothing; 16 random characters, even
  // decimal digits, take 4 or more different ones (fewer: about once in 2 million).
  if (token !== undefined && isProduction && new Set(token).size < 4) {
    return read.refuse('NODE_ENV=production: METRICS_TOKEN is not random (fewer than 4 different characters): generate one with openssl rand -base64 24', undefined);
  }
  return token;
}

function readStorage(read: EnvReader) {
  const databaseUrl = read.url('DATABASE_URL', ['postgres:', 'postgresql:']) && read.text('DATABASE_URL');
  const dataDir = path.resolve(read.text('DATA_DIR') ?? './data');
  const databaseTimeoutSeconds = read.integer('DATABASE_TIMEOUT_SECONDS', 5, 1, 600);
  const redisUrl = read.url('REDIS_URL', ['redis:', 'rediss:']) && read.text('REDIS_URL');
  return { databaseUrl, databaseTimeoutSeconds, redisUrl, dataDir };
}

/** The shapes only: `loadKeyMaterial` reads and imports the keys themselves. */
function readKeySettings(read: EnvReader) {
  const oauthPrivateKey = read.text('OAUTH_PRIVATE_KEY');
  const oauthPrivateKeyFile = read.text('OAUTH_PRIVATE_KEY_FILE');
  if (oauthPrivateKey !== undefined && oauthPrivateKeyFile !== undefined) {
    read.refuse('set only one of OAUTH_PRIVATE_KEY and OAUTH_PRIVATE_KEY_FILE', undefined);
  }
  if (oauthPrivateKey !== undefined && !oauthPrivateKey.includes('PRIVATE KEY')) {
    read.refuse('OAUTH_PRIVATE_KEY must be a PEM-encoded RSA private key', undefined);
  }
  const oauthEncryptionKey = read.text('OAUTH_ENCRYPTION_KEY');
  const oauthEncryptionKeyFile = read.text('OAUTH_ENCRYPTION_KEY_FILE');
  if (oauthEncryptionKey !== undefined && oauthEncryptionKeyFile !== undefined) {
    read.refuse('set only one of OAUTH_ENCRYPTION_KEY and OAUTH_ENCRYPTION_KEY_FILE', undefined);
  }
  if (oauthEncryptionKey !== undefined && !isBase64Key(oauthEncryptionKey)) {
    read.refuse('OAUTH_ENCRYPTION_KEY must be 32 bytes in base64 or base64url (openssl rand -base64 32)', undefined);
  }
  const rsaKeyBits = read.integer('RSA_KEY_BITS', 2048, 2048, 8192);
  if (rsaKeyBits % 1024 !== 0) read.refuse(`RSA_KEY_BITS=${rsaKeyBits} must be a multiple of 1024`, undefined);
  return {
    oauthPrivateKey,
    oauthPrivateKeyFile: oauthPrivateKeyFile && path.resolve(oauthPrivateKeyFile),
    oauthEncryptionKey,
    oauthEncryptionKeyFile: oauthEncryptionKeyFile && path.resolve(oauthEncryptionKeyFile),
    rsaKeyBits,
    refreshGraceSeconds: read.integer('REFRESH_TOKEN_GRACE_SECONDS', 30, 0, 600),
    backchannelLogoutPollSeconds: read.integer('BACKCHANNEL_LOGOUT_POLL_SECONDS', 1, 1, 300),
    auditRetentionDays: read.integer('AUDIT_RETENTION_DAYS', 90, 1, 3650),
    requirePushedAuthorizationRequests: read.oneOf('REQUIRE_PUSHED_AUTHORIZATION_REQUESTS', ['true', 'false'], 'false') === 'true',
    dpopNonceRequired: read.oneOf('DPOP_NONCE_REQUIRED', ['true', 'false'], 'false') === 'true',
  };
}

function readApiSettings(read: EnvReader) {
  const vapidPublicKey = read.text('VAPID_PUBLIC_KEY');
  const vapidPrivateKey = read.text('VAPID_PRIVATE_KEY');
  if ((vapidPublicKey === undefined) !== (vapidPrivateKey === undefined)) {
    read.refuse('set both VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY, or neither', undefined);
  }
  return {
    petitionSourceUrl: read.url('PETITION_SOURCE_URL', ['http:', 'https:']) && read.text('PETITION_SOURCE_URL'),
    petitionAllowPrivate: read.oneOf('PETITION_ALLOW_PRIVATE', ['true', 'false'], 'false') === 'true',
    vapidPublicKey,
    vapidPrivateKey,
    maxUploadBytes: read.integer('MAX_UPLOAD_BYTES', 1_572_864, 1, 100 * 1024 * 1024),
  };
}

/**
 * REQUIRE_SECOND_FACTOR: `none`, or role names separated by commas
 * (`orga`, `ambassador,orga`). Default: organisation members (`orga`, the
 * highest role) in production, nobody elsewhere.
 */
function readRequiredSecondFactor(read: EnvReader, isProduction: boolean): readonly number[] {
  const text = read.text('REQUIRE_SECOND_FACTOR')?.trim() ?? (isProduction ? 'orga' : 'none');
  if (text === 'none') return Object.freeze([]);
  const names = text.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !Object.hasOwn(ROLES, name));
  if (unknown.length > 0 || names.length === 0) {
    return read.refuse(`REQUIRE_SECOND_FACTOR must be none or role names separated by commas (${ROLE_NAMES.join(', ')}); unknown: ${unknown.join(', ') || '(empty)'}`, Object.freeze([]));
  }
  return Object.freeze([...new Set(names.map((name) => ROLES[name as RoleName]))]);
}

export const PRODUCTION_MAIL_PROBLEM = 'NODE_ENV=production requires SMTP_URL (smtp://user:pass@host:port or smtps://…) to send mail, '
  + 'or MAIL=off to run without mail';

function checkProduction(read: EnvReader, databaseUrl: string | undefined, publicUrl: string, mail: MailSetting): void {
  if (databaseUrl === undefined) read.refuse('NODE_ENV=production requires DATABASE_URL (PostgreSQL)', undefined);
  if (!publicUrl.startsWith('https://')) read.refuse('NODE_ENV=production requires an https PUBLIC_URL', undefined);
  // A server that cannot send mail says so at start, not when a member waits for a link.
  if (mail.mode === 'outbox' && read.text('SMTP_URL') === undefined) read.refuse(PRODUCTION_MAIL_PROBLEM, undefined);
}
