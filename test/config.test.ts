import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES, ConfigError, loadConfig } from '../src/config.ts';

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

  it('refuses production without PostgreSQL and an https PUBLIC_URL', () => {
    expect(problemsOf({ NODE_ENV: 'production' })).toEqual([
      'NODE_ENV=production requires DATABASE_URL (PostgreSQL)',
      'NODE_ENV=production requires an https PUBLIC_URL',
    ]);
    expect(problemsOf({ NODE_ENV: 'production', DATABASE_URL: 'postgres://db/x', PUBLIC_URL: 'http://id.example.org' }))
      .toEqual(['NODE_ENV=production requires an https PUBLIC_URL']);
    const config = loadConfig({ NODE_ENV: 'production', DATABASE_URL: 'postgres://db/x', PUBLIC_URL: 'https://id.example.org' });
    expect(config.isProduction).toBe(true);
  });

  it('checks key settings', () => {
    expect(problemsOf({ OAUTH_ENCRYPTION_KEY: 'short' })).toHaveLength(1);
    expect(problemsOf({ OAUTH_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64') })).toEqual([]);
    expect(problemsOf({ OAUTH_PRIVATE_KEY: 'x', OAUTH_PRIVATE_KEY_FILE: '/k.pem' })).toHaveLength(2);
    expect(problemsOf({ VAPID_PUBLIC_KEY: 'x' })).toEqual(['set both VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY, or neither']);
  });

  it('is documented variable for variable in .env.example', () => {
    const example = readFileSync(new URL('../.env.example', import.meta.url), 'utf8');
    const listed = [...example.matchAll(/^#?\s*([A-Z_]+)=/gm)].map((m) => m[1]);
    expect(new Set(listed)).toEqual(new Set(CONFIG_VARIABLES));
  });
});
