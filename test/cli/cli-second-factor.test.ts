/**
 * `user reset-second-factor --email E` (the first reset through the binary): the member's
 * one-time codes, recovery codes and passkeys are deleted, the reset is in
 * the audit log and the member is told by mail; their next login asks for the
 * password only. A member with nothing to reset is refused (exit 1), with no
 * event and no mail. On the CLI's own embedded data directory.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enrol, passwordStep, startEnrolment } from '../helpers/one-time-codes.ts';
import { logIn, makeDataDir, runBin, runInProcess, withApp, withDatabase } from './cli-helpers.ts';

let dataDir: string;
let remove: () => Promise<void>;
beforeAll(async () => { ({ dataDir, remove } = await makeDataDir({ migrated: true, share: true })); });
afterAll(() => remove());

const EMAIL = 'otto@example.test';
const PASSWORD = 'a long enough password';

describe('user reset-second-factor', () => {
  it('deletes codes, recovery codes and passkeys; records the event; mails the member (through the bin)', async () => {
    const added = await runInProcess(dataDir, ['user', 'add', '--email', EMAIL, '--first-name', 'Otto', '--last-name', 'Ost', '--json'], `${PASSWORD}\n`);
    expect(added.code).toBe(0);
    const userId = JSON.parse(added.out).id as number;
    await withApp(dataDir, async (app, db) => {
      const { cookie } = await logIn(app, EMAIL, PASSWORD);
      const csrfToken = /CSRF_TOKEN=([^;]+)/.exec(cookie)![1]!;
      await enrol(app, { cookie, csrfToken, headers: {} }, new Date());
      await db.insertInto('passkeys').values({
        user_id: userId, credential_id: 'Y3JlZGVudGlhbA', public_key: Buffer.from([1, 2, 3]), device_type: 'multiDevice', backed_up: true, name: 'Phone',
      }).execute();
      expect((await passwordStep(app, { email: EMAIL, password: PASSWORD })).response.headers.location).toBe('/login/second-factor');
    });

    const reset = await runBin(dataDir, ['user', 'reset-second-factor', '--email', EMAIL]);
    expect(reset).toEqual({ code: 0, out: `Second factor of ${EMAIL} (user ${userId}) reset: one-time codes deleted, 1 passkey(s) deleted.\n`, err: '' });
    // Again, with nothing left but an enrolment never confirmed: refused, nothing deleted, neither recorded nor mailed as a removal.
    await withApp(dataDir, async (app) => {
      const { cookie } = await logIn(app, EMAIL, PASSWORD);
      await startEnrolment(app, { cookie, csrfToken: /CSRF_TOKEN=([^;]+)/.exec(cookie)![1]!, headers: {} });
    });
    // The address as pasted, with whitespace around it, names the same member.
    const again = await runInProcess(dataDir, ['user', 'reset-second-factor', '--email', ` ${EMAIL} `]);
    expect(again.code).toBe(1);
    expect(again.err).toContain(`${EMAIL} (user ${userId}) has no second factor (no one-time codes, no passkeys): nothing to reset`);
    await withDatabase(dataDir, async (db) => {
      expect(await db.selectFrom('one_time_code_secrets').select('user_id').execute()).toEqual([{ user_id: userId }]);
      await db.deleteFrom('one_time_code_secrets').execute();
    });
    expect((await runInProcess(dataDir, ['user', 'reset-second-factor', '--email', 'nobody@example.test'])).code).toBe(1);

    await withDatabase(dataDir, async (db) => {
      expect(await db.selectFrom('one_time_code_secrets').select('user_id').execute()).toEqual([]);
      expect(await db.selectFrom('recovery_codes').select('user_id').execute()).toEqual([]);
      expect(await db.selectFrom('passkeys').select('user_id').execute()).toEqual([]);
      const events = await db.selectFrom('security_events').select(['event', 'user_id', 'details']).where('event', '=', 'account.second_factor.removed').orderBy('id').execute();
      expect(events).toEqual([
        { event: 'account.second_factor.removed', user_id: userId, details: expect.objectContaining({ by: 'operator', passkeysDeleted: 1 }) },
      ]);
      const mails = await db.selectFrom('mail_outbox').select(['kind', 'locale']).where('recipient', '=', EMAIL).orderBy('id').execute();
      expect(mails).toEqual([
        { kind: 'one-time-codes-enabled', locale: 'de' }, { kind: 'second-factor-reset', locale: 'de' },
      ]);
    });
    await withApp(dataDir, async (app) => {
      expect((await passwordStep(app, { email: EMAIL, password: PASSWORD })).response.headers.location).toBe('/');
    });
  });
});
