import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES, ConfigError, loadConfig, PRODUCTION_MAIL_PROBLEM } from '../../src/config.ts';
import { loadKeyMaterial } from '../../src/oauth/keys/key-material.ts';
import { ignoredVariableNotices, keyOriginNotice } from '../../src/startup.ts';

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return [...error.problems];
    throw error;
  }
  return [];
}

describe('configuration', () => {
  it('has working defaults for a trial run', () => {
    const config = loadConfig({});
    expect(config.port).toBe(8080);
    expect(config.host).toBe('0.0.0.0');
    expect(config.publicUrl).toBe('http://localhost:8080');
    expect(config.databaseUrl).toBeUndefined();
    expect(config.dataDir).toMatch(/\/data$/);
    expect(config.rsaKeyBits).toBe(2048);
    expect(config.maxUploadBytes).toBe(1_572_864);
    expect(config.refreshGraceSeconds).toBe(30);
    expect(config.isProduction).toBe(false);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('derives the issuer from PORT and trims a trailing slash from PUBLIC_URL', () => {
    expect(loadConfig({ PORT: '9000' }).publicUrl).toBe('http://localhost:9000');
    expect(loadConfig({ PUBLIC_URL: 'https://id.example.org/' }).publicUrl).toBe('https://id.example.org');
  });

  it('refuses a PUBLIC_URL with a path, or a user name or password (discovery would advertise endpoints that answer 404, or publish the password)', () => {
    expect(problemsOf({ PUBLIC_URL: 'http://localhost:8080/auth' })).toEqual(['PUBLIC_URL must not carry a path: the server answers at the root of its host (put a path prefix in a proxy in front of it)']);
    expect(problemsOf({ PUBLIC_URL: 'https://id.example.org/auth/' })).toHaveLength(1);
    expect(problemsOf({ PUBLIC_URL: 'https://user:pw@id.example.org' })).toEqual(['PUBLIC_URL must not carry a user name or password']);
    expect(problemsOf({ PUBLIC_URL: 'https://user:pw@id.example.org' }).join()).not.toContain('pw@');
    expect(loadConfig({ PUBLIC_URL: 'https://id.example.org//' }).publicUrl).toBe('https://id.example.org');
  });

  it('names every bad value on its own line', () => {
    expect(problemsOf({ PORT: 'abc' })).toEqual(['PORT="abc" must be a whole number from 0 to 65535']);
    const problems = problemsOf({ PORT: '70000', LOG_LEVEL: 'loud', DATABASE_URL: 'mysql://x', RSA_KEY_BITS: '1024', MAX_UPLOAD_BYTES: '-5' });
    expect(problems).toHaveLength(5);
    expect(problems.join('\n')).toMatch(/PORT=.*70000/);
    expect(problems.join('\n')).toMatch(/LOG_LEVEL="loud" must be one of/);
    expect(problems.join('\n')).toMatch(/DATABASE_URL=.* must be a postgres: or postgresql: URL/);
    expect(problems.join('\n')).toMatch(/RSA_KEY_BITS="1024"/);
    expect(problems.join('\n')).toMatch(/MAX_UPLOAD_BYTES="-5"/);
  });

  it('never prints the password of a bad database URL', () => {
    expect(problemsOf({ DATABASE_URL: 'mysql://admin:s3cret@db/x' }).join()).not.toContain('s3cret');
  });

  it('refuses production without PostgreSQL, an https PUBLIC_URL and a way to send mail', () => {
    expect(problemsOf({ NODE_ENV: 'production' })).toEqual([
      'NODE_ENV=production requires DATABASE_URL (PostgreSQL)',
      'NODE_ENV=production requires an https PUBLIC_URL',
      PRODUCTION_MAIL_PROBLEM,
    ]);
    expect(problemsOf({ NODE_ENV: 'production', DATABASE_URL: 'postgres://db/x', PUBLIC_URL: 'http://id.example.org', MAIL: 'off' }))
      .toEqual(['NODE_ENV=production requires an https PUBLIC_URL']);
    const config = loadConfig({ NODE_ENV: 'production', DATABASE_URL: 'postgres://db/x', PUBLIC_URL: 'https://id.example.org', MAIL: 'off' });
    expect(config.isProduction).toBe(true);
    expect(config.mail).toEqual({ mode: 'off' });
  });

  it('reads SMTP_URL, MAIL_FROM and MAIL, and never prints the SMTP password', () => {
    const production = { NODE_ENV: 'production', DATABASE_URL: 'postgres://db/x', PUBLIC_URL: 'https://id.example.org' };
    expect(loadConfig({ ...production, SMTP_URL: 'smtps://mailer:s3cret@smtp.example.org:465' }).mail).toEqual({
      mode: 'smtp', smtpUrl: 'smtps://mailer:s3cret@smtp.example.org:465', from: 'noreply@id.example.org',
    });
    expect(loadConfig({ SMTP_URL: 'smtp://smtp.example.org:587', MAIL_FROM: 'Foodsharing <hallo@example.org>' }).mail)
      .toEqual({ mode: 'smtp', smtpUrl: 'smtp://smtp.example.org:587', from: 'Foodsharing <hallo@example.org>' });
    expect(loadConfig({ DATA_DIR: '/srv/fs' }).mail).toEqual({ mode: 'outbox', dir: '/srv/fs/outbox', from: 'noreply@localhost' });
    const problems = problemsOf({ SMTP_URL: 'http://mailer:s3cret@smtp.example.org', MAIL_FROM: 'not an address', MAIL: 'maybe' });
    expect(problems).toEqual([
      'MAIL="maybe" must be one of: on, off',
      'SMTP_URL="http://***@smtp.example.org" must be a smtp: or smtps: URL',
      'MAIL_FROM="not an address" must be an address (a@example.org) or a name and an address (Foodsharing <a@example.org>)',
    ]);
    expect(problems.join()).not.toContain('s3cret');
  });

  it('checks PETITION_SOURCE_URL with the other values', () => {
    expect(problemsOf({ PETITION_SOURCE_URL: 'ftp://x', PORT: 'abc' })).toEqual([
      'PORT="abc" must be a whole number from 0 to 65535',
      'PETITION_SOURCE_URL="ftp://x" must be a http: or https: URL',
    ]);
    expect(loadConfig({ PETITION_SOURCE_URL: 'https://petition.example.org/s.json' }).petitionSourceUrl).toBe('https://petition.example.org/s.json');
    expect(loadConfig({}).petitionSourceUrl).toBeUndefined();
  });

  it('accepts TRUST_PROXY as true, false or a list of addresses and ranges, and names a bad entry', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,::1/128, loopback,192.168.0.0/255.255.0.0' }).trustProxy)
      .toBe('10.0.0.0/8,127.0.0.1,::1/128,loopback,192.168.0.0/255.255.0.0');
    expect(problemsOf({ TRUST_PROXY: 'yes' })).toEqual([
      'TRUST_PROXY="yes" must be true, false or a comma-separated list of IP addresses or CIDR ranges ("yes" is none of these)',
    ]);
    for (const bad of ['10.0.0.0/33', '::1/129', '10.0.0.1,', '1.2.3.4/8/9', '10.0.0.0/ffff::', 'proxy.example.org']) {
      expect(problemsOf({ TRUST_PROXY: bad }), bad).toHaveLength(1);
    }
  });

  it('limits connections per client address to 64 by default, configurable from 1', () => {
    expect(loadConfig({}).maxConnections).toBe(1024);
    expect(loadConfig({}).maxConnectionsPerAddress).toBe(64);
    expect(loadConfig({ MAX_CONNECTIONS_PER_ADDRESS: '1024' }).maxConnectionsPerAddress).toBe(1024);
    expect(problemsOf({ MAX_CONNECTIONS_PER_ADDRESS: '0' })).toEqual(['MAX_CONNECTIONS_PER_ADDRESS="0" must be a whole number from 1 to 1000000']);
    expect(problemsOf({ MAX_CONNECTIONS_PER_ADDRESS: 'many' })).toEqual(['MAX_CONNECTIONS_PER_ADDRESS="many" must be a whole number from 1 to 1000000']);
  });

  it('keeps security events 90 days by default, configurable from 1 to 3650', () => {
    expect(loadConfig({}).auditRetentionDays).toBe(90);
    expect(loadConfig({ AUDIT_RETENTION_DAYS: '365' }).auditRetentionDays).toBe(365);
    expect(problemsOf({ AUDIT_RETENTION_DAYS: '0' })).toEqual(['AUDIT_RETENTION_DAYS="0" must be a whole number from 1 to 3650']);
    expect(problemsOf({ AUDIT_RETENTION_DAYS: '90d' })).toEqual(['AUDIT_RETENTION_DAYS="90d" must be a whole number from 1 to 3650']);
  });

  it('checks that HOST is an IP address or a host name', () => {
    for (const good of ['0.0.0.0', '::', '127.0.0.1', 'localhost', 'app-1.internal.example.org']) {
      expect(loadConfig({ HOST: good }).host).toBe(good);
    }
    expect(problemsOf({ HOST: 'my host' })).toEqual(['HOST="my host" must be an IP address or a host name']);
    for (const bad of ['-x', 'a..b', 'x_y', 'http://x', '1.2.3.4:80', '999.1.1.1', '1.2.3']) expect(problemsOf({ HOST: bad }), bad).toHaveLength(1);
  });

  it('checks key settings', () => {
    expect(problemsOf({ OAUTH_ENCRYPTION_KEY: 'short' })).toHaveLength(1);
    expect(problemsOf({ OAUTH_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64') })).toEqual([]);
    expect(problemsOf({ OAUTH_PRIVATE_KEY: 'x', OAUTH_PRIVATE_KEY_FILE: '/k.pem' })).toHaveLength(2);
    expect(problemsOf({ VAPID_PUBLIC_KEY: 'x' })).toEqual(['set both VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY, or neither']);
  });

  it('reads ALLOW_DEMO_IN_PRODUCTION as true or false (default false)', () => {
    expect(loadConfig({}).allowDemoInProduction).toBe(false);
    expect(loadConfig({ ALLOW_DEMO_IN_PRODUCTION: 'true' }).allowDemoInProduction).toBe(true);
    expect(loadConfig({ ALLOW_DEMO_IN_PRODUCTION: 'false' }).allowDemoInProduction).toBe(false);
    expect(problemsOf({ ALLOW_DEMO_IN_PRODUCTION: 'yes' })).toEqual(['ALLOW_DEMO_IN_PRODUCTION="yes" must be one of: true, false']);
  });

  it('no longer reads UPLOAD_DIR (uploads live in the database): set, it is named in a warning, not refused', () => {
    expect(loadConfig({}).ignoredVariables).toEqual([]);
    const config = loadConfig({ UPLOAD_DIR: '/srv/uploads' });
    expect(config).not.toHaveProperty('uploadDir');
    expect(ignoredVariableNotices(config)).toEqual([{
      level: 'warn', message: 'UPLOAD_DIR is set but ignored: uploads are stored in the database, where every instance finds them',
    }]);
  });

  it('is documented variable for variable in .env.example', () => {
    const example = readFileSync(new URL('../../.env.example', import.meta.url), 'utf8');
    const listed = [...example.matchAll(/^#?\s*([A-Z_]+)=/gm)].map((m) => m[1]);
    expect(new Set(listed)).toEqual(new Set(CONFIG_VARIABLES));
  });
});

describe('key material (read and checked before the database opens)', () => {
  let dir: string;
  beforeAll(async () => { dir = await mkdtemp(path.join(tmpdir(), 'fs-keys-')); });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const rsaPem = (bits: number, type: 'pkcs1' | 'pkcs8') =>
    generateKeyPairSync('rsa', { modulusLength: bits }).privateKey.export({ type, format: 'pem' }).toString();
  const encryptionKey = Buffer.alloc(32, 3).toString('base64');
  const keyProblems = async (env: Record<string, string>): Promise<string[]> => {
    const error = await loadKeyMaterial(loadConfig({ DATA_DIR: path.join(dir, 'data'), ...env })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    return [...(error as ConfigError).problems];
  };
  const write = async (name: string, content: string) => {
    await writeFile(path.join(dir, name), content);
    return path.join(dir, name);
  };

  it('names a key file that is no key, is missing, or holds a weak or non-RSA key, one line each', async () => {
    const notAKey = await write('hostname', 'my-host\n');
    expect(await keyProblems({ OAUTH_PRIVATE_KEY_FILE: notAKey })).toEqual([
      `OAUTH_PRIVATE_KEY_FILE=${notAKey} is not a PEM-encoded private key (PKCS#8 or PKCS#1, unencrypted)`,
    ]);
    const missing = path.join(dir, 'missing.pem');
    const badEncryption = await write('short.key', Buffer.alloc(16, 1).toString('base64'));
    expect(await keyProblems({ OAUTH_PRIVATE_KEY_FILE: missing, OAUTH_ENCRYPTION_KEY_FILE: badEncryption })).toEqual([
      `OAUTH_PRIVATE_KEY_FILE=${missing} cannot be read: no such file`,
      `OAUTH_ENCRYPTION_KEY_FILE=${badEncryption} must hold 32 bytes in base64 or base64url (openssl rand -base64 32)`,
    ]);
    expect(await keyProblems({ OAUTH_PRIVATE_KEY: rsaPem(1024, 'pkcs8'), OAUTH_ENCRYPTION_KEY: encryptionKey }))
      .toEqual(['OAUTH_PRIVATE_KEY holds a 1024-bit RSA key; at least 2048 bits are required']);
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    expect(await keyProblems({ OAUTH_PRIVATE_KEY: ec, OAUTH_ENCRYPTION_KEY: encryptionKey }))
      .toEqual(['OAUTH_PRIVATE_KEY holds a ec key; RS256 needs an RSA key']);
    expect(await keyProblems({ OAUTH_PRIVATE_KEY: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----', OAUTH_ENCRYPTION_KEY: encryptionKey }))
      .toEqual(['OAUTH_PRIVATE_KEY is not a PEM-encoded private key (PKCS#8 or PKCS#1, unencrypted)']);
    expect(existsSync(path.join(dir, 'data'))).toBe(false); // nothing generated for a configuration that fails
  });

  it('accepts PKCS#1 and PKCS#8 RSA keys (also with escaped newlines) and hands on PKCS#8', async () => {
    const pkcs1 = rsaPem(2048, 'pkcs1');
    expect(pkcs1).toContain('BEGIN RSA PRIVATE KEY');
    const file = await write('signing.pem', pkcs1);
    const fromFile = await loadKeyMaterial(loadConfig({ OAUTH_PRIVATE_KEY_FILE: file, OAUTH_ENCRYPTION_KEY: encryptionKey, DATA_DIR: dir }));
    expect(fromFile.signingKeyPem).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    expect(fromFile.generatedIn).toBeUndefined();
    expect(Buffer.from(fromFile.encryptionKey)).toEqual(Buffer.alloc(32, 3));
    const inline = await loadKeyMaterial(loadConfig({ OAUTH_PRIVATE_KEY: pkcs1.replace(/\n/g, '\\n'), OAUTH_ENCRYPTION_KEY: encryptionKey, DATA_DIR: dir }));
    expect(inline.signingKeyPem).toBe(fromFile.signingKeyPem);
  });

  it('in production, refuses a placeholder encryption key or metrics token (too few different values to be random)', async () => {
    const production = { NODE_ENV: 'production', DATABASE_URL: 'postgres://db/x', PUBLIC_URL: 'https://id.example.org', MAIL: 'off', DATA_DIR: path.join(dir, 'weak') };
    const zeros = Buffer.alloc(32).toString('base64');
    const error = await loadKeyMaterial(loadConfig({ ...production, OAUTH_ENCRYPTION_KEY: zeros, OAUTH_PRIVATE_KEY: rsaPem(2048, 'pkcs8') })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      'OAUTH_ENCRYPTION_KEY is not a random key (its 32 bytes take only 1 different value): generate one with openssl rand -base64 32',
    ]);
    const random = randomBytes(32).toString('base64');
    expect(Buffer.from((await loadKeyMaterial(loadConfig({ ...production, OAUTH_ENCRYPTION_KEY: random, OAUTH_PRIVATE_KEY: rsaPem(2048, 'pkcs8') }))).encryptionKey))
      .toEqual(Buffer.from(random, 'base64'));
    // Outside production the test keys' constant bytes are fine.
    expect((await loadKeyMaterial(loadConfig({ OAUTH_ENCRYPTION_KEY: zeros, DATA_DIR: path.join(dir, 'weak-dev') }))).encryptionKey).toHaveLength(32);

    expect(problemsOf({ ...production, METRICS_TOKEN: 'aaaaaaaaaaaaaaaa' })).toEqual([
      'NODE_ENV=production: METRICS_TOKEN is not random (fewer than 4 different characters): generate one with openssl rand -base64 24',
    ]);
    expect(problemsOf({ ...production, METRICS_TOKEN: '1231231231231231' })).toHaveLength(1);
    expect(loadConfig({ ...production, METRICS_TOKEN: 'Zq3vT9kLm2Xw8Rp0' }).metricsToken).toBe('Zq3vT9kLm2Xw8Rp0');
    // Hex and decimal tokens (openssl rand -hex 8) with few different characters by chance are not refused.
    expect(loadConfig({ ...production, METRICS_TOKEN: '3e3e7a7a3e3e7a3e' }).metricsToken).toBe('3e3e7a7a3e3e7a3e'); // 4 different
    expect(loadConfig({ METRICS_TOKEN: 'aaaaaaaaaaaaaaaa' }).metricsToken).toBe('aaaaaaaaaaaaaaaa');
  });

  it('generates missing keys into DATA_DIR/keys and warns about that in production only', async () => {
    const dataDir = path.join(dir, 'generated');
    const keys = await loadKeyMaterial(loadConfig({ DATA_DIR: dataDir }));
    expect(keys.generatedIn).toBe(path.join(dataDir, 'keys'));
    expect(keyOriginNotice(loadConfig({ DATA_DIR: dataDir }), keys)).toEqual({
      level: 'info', message: `using key files in ${path.join(dataDir, 'keys')} (generated on first start)`,
    });
    const production = loadConfig({ NODE_ENV: 'production', DATABASE_URL: 'postgres://db/x', PUBLIC_URL: 'https://id.example.org', DATA_DIR: dataDir, MAIL: 'off' });
    expect(keyOriginNotice(production, keys)).toEqual({ level: 'warn', message: expect.stringContaining(
      'NODE_ENV=production without OAUTH_PRIVATE_KEY(_FILE) and OAUTH_ENCRYPTION_KEY(_FILE): using keys generated for this instance in') });
    expect(keyOriginNotice(production, { ...keys, generatedIn: undefined })).toBeUndefined();
  });
});
