/**
 * Names that would spoof what members and operators read (docs/security.md
 * "Spoofed names"): the CLI refuses C1 controls and bidirectional overrides in
 * every name it writes (members, regions, OAuth clients), and never prints a
 * control character as it is — not even from a name stored before the rule,
 * or written by SQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeDataDir, runBin, runInProcess, withDatabase } from './cli-helpers.ts';

let dataDir: string;
let remove: () => Promise<void>;
beforeAll(async () => {
  ({ dataDir, remove } = await makeDataDir({ migrated: true, share: true }));
  expect((await cli(['region', 'add', '--name', 'Wien'])).code).toBe(0);
  expect((await cli(['client', 'add', '--client-id', 'wiki', '--name', 'Wiki', '--redirect-uri', 'https://wiki.example/cb'])).code).toBe(0);
});
afterAll(() => remove());

const cli = (argv: string[], input = '') => runInProcess(dataDir, argv, input);
const PROBLEM = 'must not contain control characters (U+0000–U+001F, U+007F–U+009F) or bidirectional overrides (U+202A–U+202E, U+2066–U+2069)';
/** A next line (C1), the one-byte CSI (C1), right-to-left override, right-to-left isolate. */
const SPOOFING = [['U+0085', '\u0085'], ['U+009B', '\u009b'], ['U+202E', '\u202e'], ['U+2067', '\u2067']];
/** What a terminal would obey or reorder, as it would reach it. */
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

function storedNames(): Promise<{ users: string[]; regions: string[]; clients: string[] }> {
  return withDatabase(dataDir, async (db) => ({
    users: (await db.selectFrom('users').select(['first_name', 'last_name']).orderBy('id').execute()).map((u) => `${u.first_name} ${u.last_name}`),
    regions: (await db.selectFrom('regions').select('name').orderBy('id').execute()).map((r) => r.name),
    clients: (await db.selectFrom('oauth_clients').select('name').orderBy('id').execute()).map((c) => c.name),
  }));
}

describe('names with C1 controls or bidirectional overrides', () => {
  it.each(SPOOFING)('user add, region add, client add and client update refuse one with %s, exit 1, and write nothing', async (_code, c) => {
    const before = await storedNames();
    const user = await cli(['user', 'add', '--email', 'eve@example.test', '--first-name', `Eve${c}`, '--last-name', `${c}Apfel`, '--json'], 'long enough\n');
    expect(user.code).toBe(1);
    expect(JSON.parse(user.out)).toEqual({ error: 'The request is invalid.', errors: [
      { field: 'firstName', option: '--first-name', message: PROBLEM },
      { field: 'lastName', option: '--last-name', message: PROBLEM },
    ] });
    const region = await cli(['region', 'add', '--name', `Wien${c}Nord`]);
    expect(region).toEqual({ code: 1, out: '', err: `error: The request is invalid.\n  --name: ${PROBLEM}\n` });
    const added = await cli(['client', 'add', '--client-id', 'spoof', '--name', `Wiki ${c}nigol`, '--redirect-uri', 'https://spoof.example/cb', '--json']);
    expect(added.code).toBe(1);
    expect(JSON.parse(added.out)).toEqual({ error: 'The request is invalid.', errors: [{ field: 'name', option: '--name', message: PROBLEM }] });
    const updated = await cli(['client', 'update', '--client-id', 'wiki', '--name', `${c}Wiki`]);
    expect(updated).toEqual({ code: 1, out: '', err: `error: The request is invalid.\n  --name: ${PROBLEM}\n` });
    expect(await storedNames()).toEqual(before);
  });

  it('accepts ordinary non-ASCII names: umlauts, ß, emoji, Arabic and Hebrew letters', async () => {
    const user = await cli(['user', 'add', '--email', 'zoe@example.test', '--first-name', 'Zoë 😀', '--last-name', 'עבדאללה عبد الله', '--json'], 'long enough\n');
    expect(user.code).toBe(0);
    expect((await cli(['region', 'add', '--name', 'Groß-Gerau'])).code).toBe(0);
    expect((await cli(['client', 'add', '--client-id', 'cafe', '--name', 'Café ☕ مقهى', '--redirect-uri', 'https://cafe.example/cb'])).code).toBe(0);
    expect(await storedNames()).toMatchObject({ users: ['Zoë 😀 עבדאללה عبد الله'], regions: ['Wien', 'Groß-Gerau'], clients: ['Wiki', 'Café ☕ مقهى'] });
    expect((await cli(['client', 'list'])).out).toContain('Café ☕ مقهى\n');
    expect((await cli(['user', 'list'])).out).toContain('Zoë 😀 עבדאללה عبد الله\n');
  });
});

describe('names stored before the rule (or by SQL)', () => {
  const SPOOFED = 'Wiki \u202enigol\u2067 \u001b[2J\u009b31m\r\nroot';
  const SHOWN = 'Wiki \\u202Enigol\\u2067 \\u001B[2J\\u009B31m\\u000D\\u000Aroot';
  let userId: number;
  let regionId: number;
  beforeAll(async () => {
    const added = await cli(['user', 'add', '--email', 'mal@example.test', '--first-name', 'Mal', '--last-name', 'Ory', '--json'], 'long enough\n');
    userId = JSON.parse(added.out).id;
    regionId = await withDatabase(dataDir, async (db) => {
      await db.updateTable('users').set({ first_name: SPOOFED }).where('id', '=', userId).execute();
      await db.updateTable('oauth_clients').set({ name: SPOOFED }).where('client_id', '=', 'wiki').execute();
      const region = await db.updateTable('regions').set({ name: SPOOFED }).where('name', '=', 'Wien').returning('id').executeTakeFirstOrThrow();
      return region.id;
    });
  });

  it('are printed with every control and bidirectional character escaped, in text (region list through the bin)', async () => {
    const runs = {
      'region list': await runBin(dataDir, ['region', 'list']),
      'user list': await cli(['user', 'list']),
      'user show': await cli(['user', 'show', '--id', String(userId)]),
      'client list': await cli(['client', 'list']),
      'client show': await cli(['client', 'show', '--client-id', 'wiki']),
    };
    for (const [command, run] of Object.entries(runs)) {
      expect({ command, code: run.code, err: run.err }).toEqual({ command, code: 0, err: '' });
      expect(run.out, command).not.toMatch(RAW_CONTROL);
      expect(run.out, command).toContain(SHOWN);
    }
    expect(runs['region list'].out).toContain(`${String(regionId).padStart(5)}  ${SHOWN} (region)\n`);
    expect(runs['user show'].out.split('\n')[0]).toBe(`${userId}: mal@example.test — ${SHOWN} Ory (foodsharer)`);
    expect(runs['client show'].out.split('\n')[0]).toBe(`wiki: ${SHOWN} (confidential)`);
  });

  it('are escaped in --json too: valid JSON that parses to the stored name', async () => {
    const runs = {
      'region list': await cli(['region', 'list', '--json']),
      'user list': await cli(['user', 'list', '--json']),
      'user show': await cli(['user', 'show', '--id', String(userId), '--json']),
      'client list': await cli(['client', 'list', '--json']),
      'client show': await cli(['client', 'show', '--client-id', 'wiki', '--json']),
    };
    for (const [command, run] of Object.entries(runs)) {
      expect({ command, code: run.code }).toEqual({ command, code: 0 });
      expect(run.out, command).not.toMatch(RAW_CONTROL);
      expect(run.out, command).toContain('Wiki \\u202Enigol\\u2067 \\u001b[2J\\u009B31m\\r\\nroot');
    }
    expect(JSON.parse(runs['region list'].out)).toContainEqual({ id: regionId, name: SPOOFED, type: 'region', parentId: null });
    expect(JSON.parse(runs['user show'].out)).toMatchObject({ id: userId, firstName: SPOOFED, lastName: 'Ory' });
    expect(JSON.parse(runs['client show'].out)).toMatchObject({ clientId: 'wiki', name: SPOOFED });
    expect(JSON.parse(runs['client list'].out)).toContainEqual(expect.objectContaining({ clientId: 'wiki', name: SPOOFED }));
  });

  it('error messages that repeat input are escaped as well', async () => {
    const unknown = await cli(['user', 'show', '--email', 'x\u202e@example.test']);
    expect(unknown).toEqual({ code: 1, out: '', err: 'error: there is no user with email x\\u202E@example.test\n' });
  });
});
