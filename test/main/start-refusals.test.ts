/** `npm start` refuses a bad configuration: one clear line per value, a non-zero exit, before opening the database. */
import { existsSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PRODUCTION_MAIL_PROBLEM } from '../../src/config.ts';
import { TEST_DATABASE_URL } from '../helpers/database.ts';
import { copyMigratedDatabase } from '../helpers/migrated-data-dir.ts';
import { freePort } from '../helpers/oauth.ts';
import { start, START_TEST_TIMEOUT_MS, useStartDataDir } from './start-process.ts';

const work = useStartDataDir();

// These start on the embedded database whatever the run (DATA_DIR, no DATABASE_URL): once, in the
// PGlite run, is enough; the PostgreSQL run starts the server on PostgreSQL (start-postgres.test.ts).
const onEmbeddedDatabase = it.skipIf(TEST_DATABASE_URL);

describe('npm start', { timeout: START_TEST_TIMEOUT_MS }, () => {
  onEmbeddedDatabase('refuses a bad configuration with one clear line per value and a non-zero exit', async () => {
    const running = start({ PORT: 'abc', LOG_LEVEL: 'chatty', DATA_DIR: work.dataDir });
    expect(await running.exited).toBe(1);
    expect(running.output()).toContain('PORT="abc" must be a whole number from 0 to 65535');
    expect(running.output()).toContain('LOG_LEVEL="chatty" must be one of');
    expect(existsSync(path.join(work.dataDir, 'pglite'))).toBe(false);
  });

  onEmbeddedDatabase('refuses production without PostgreSQL and https', async () => {
    const running = start({ NODE_ENV: 'production', DATA_DIR: work.dataDir });
    expect(await running.exited).toBe(1);
    expect(running.output()).toContain('NODE_ENV=production requires DATABASE_URL (PostgreSQL)');
    expect(running.output()).toContain('NODE_ENV=production requires an https PUBLIC_URL');
  });

  onEmbeddedDatabase('refuses production that cannot send mail (no SMTP_URL, no MAIL=off), before opening the database', async () => {
    const running = start({ NODE_ENV: 'production', PUBLIC_URL: 'https://id.example.org', DATABASE_URL: 'postgres://postgres@127.0.0.1:1/unused', DATA_DIR: work.dataDir });
    expect(await running.exited).toBe(1);
    expect(running.output()).toBe(`Invalid configuration:\n  - ${PRODUCTION_MAIL_PROBLEM}\n`);
    expect(existsSync(path.join(work.dataDir, 'pglite'))).toBe(false);
  });

  onEmbeddedDatabase('refuses a bad TRUST_PROXY or HOST before opening the database', async () => {
    const running = start({ TRUST_PROXY: 'yes', HOST: 'my host', DATA_DIR: work.dataDir });
    expect(await running.exited).toBe(1);
    expect(running.output()).toContain('TRUST_PROXY="yes" must be true, false or a comma-separated list of IP addresses or CIDR ranges');
    expect(running.output()).toContain('HOST="my host" must be an IP address or a host name');
    expect(existsSync(path.join(work.dataDir, 'pglite'))).toBe(false);
  });

  onEmbeddedDatabase('names PORT, and what to do, when another program listens on it', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    try {
      // Its own data directory: the server gets as far as listening (the others here must never open one).
      const dataDir = path.join(work.dataDir, 'port-taken');
      await copyMigratedDatabase(dataDir);
      const running = start({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir });
      expect(await running.exited).toBe(1);
      expect(running.output()).toContain(`Failed to start: PORT=${port}: another program already listens on 127.0.0.1:${port}. Stop it, or set PORT to a free port (PORT=8081 npm start).`);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  onEmbeddedDatabase('refuses a signing key file that holds no key, with one line naming it, before opening the database or generating keys', async () => {
    const running = start({ OAUTH_PRIVATE_KEY_FILE: '/etc/hostname', DATA_DIR: work.dataDir });
    expect(await running.exited).toBe(1);
    expect(running.output()).toBe('Invalid configuration:\n'
      + '  - OAUTH_PRIVATE_KEY_FILE=/etc/hostname is not a PEM-encoded private key (PKCS#8 or PKCS#1, unencrypted)\n');
    expect(existsSync(path.join(work.dataDir, 'pglite'))).toBe(false);
    expect(existsSync(path.join(work.dataDir, 'keys'))).toBe(false);
    const missing = start({ OAUTH_ENCRYPTION_KEY_FILE: path.join(work.dataDir, 'nope.key'), DATA_DIR: work.dataDir });
    expect(await missing.exited).toBe(1);
    expect(missing.output()).toContain(`OAUTH_ENCRYPTION_KEY_FILE=${path.join(work.dataDir, 'nope.key')} cannot be read: no such file`);
    expect(existsSync(path.join(work.dataDir, 'pglite'))).toBe(false);
  });

  onEmbeddedDatabase('names DATABASE_URL and the address tried when the database refuses the connection, never the password', async () => {
    const port = await freePort(); // closed again: nothing listens there
    const running = start({ DATABASE_URL: `postgres://fs:s3cret-pw@127.0.0.1:${port}/foodsharing`, DATA_DIR: work.dataDir });
    expect(await running.exited).toBe(1);
    expect(running.output()).toBe(`Failed to start: cannot connect to the database at 127.0.0.1:${port} (DATABASE_URL): connection refused\n`);
  });
});
