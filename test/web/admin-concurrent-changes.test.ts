/**
 * Two changes of one client at the same moment on the admin screen (two
 * operators, or an operator and the command line), on PostgreSQL: one side's
 * write is held open until the other is seen waiting for it. The later
 * write is made only on the version it read: otherwise an edit saved over a
 * new secret brought the old one back, two new secrets at once showed one
 * that never worked, and an edit of a client being deleted failed (500) or
 * logged a change of a deleted client.
 */
import { describe, expect, test } from 'vitest';
import { digestClientSecret, generateClientSecret } from '../../src/oauth/clients/client-secret.ts';
import { findClientRow } from '../../src/oauth/clients/clients.repository.ts';
import { TEST_DATABASE_URL } from '../helpers/database.ts';
import { backendPid, untilWaitingOn } from '../helpers/lock-waits.ts';
import { makeClient } from '../helpers/oauth.ts';
import { secretIn, useAdminScreen } from './admin-screen.ts';

const screen = useAdminScreen();
const { t, post, fullForm } = screen;

/** Runs `request` while another transaction holds the client's row with `change` made and not committed. */
async function whileChanging(clientId: string, change: 'secret' | 'delete', request: () => ReturnType<typeof post>) {
  const row = (await findClientRow(t.db, clientId))!;
  const otherSecret = generateClientSecret();
  let answer: ReturnType<typeof post> | undefined;
  await t.db.transaction().execute(async (other) => {
    if (change === 'secret') await other.updateTable('oauth_clients').set({ secret_digest: digestClientSecret(t.keys, otherSecret) }).where('id', '=', row.id).execute();
    else await other.deleteFrom('oauth_clients').where('id', '=', row.id).execute();
    answer = request();
    await untilWaitingOn(t.db, await backendPid(other), answer);
  });
  return { answer: await answer!, otherDigest: digestClientSecret(t.keys, otherSecret) };
}

describe.runIf(TEST_DATABASE_URL)('two changes of one client at once (PostgreSQL)', () => {
  test('the edit form saved while another operator sets a new secret: nothing saved, 409 with why; the new secret stands', async () => {
    const { clientId } = await makeClient(t);
    const { answer, otherDigest } = await whileChanging(clientId, 'secret', () => post(`/admin/oauthclients/${clientId}`, screen.orga, fullForm(clientId, screen.orga.csrfToken)));
    expect(answer.statusCode).toBe(409);
    expect(answer.body).toContain('Jemand anderes hat diese App gerade geändert. Hier wurde nichts gespeichert: öffne sie aus der Liste neu, prüfe sie und versuche es dann noch einmal.');
    const row = (await findClientRow(t.db, clientId))!;
    expect(row.secret_digest).toEqual(otherDigest);
    expect(row.name).toBe('Test App');
  });

  test('a new secret asked for while another one is being set: no secret shown, 409 with why; the other stands', async () => {
    const { clientId } = await makeClient(t);
    const { answer, otherDigest } = await whileChanging(clientId, 'secret', () => post(`/admin/oauthclients/${clientId}/secret`, screen.orga, [['csrf_token', screen.orga.csrfToken]]));
    expect(answer.statusCode).toBe(409);
    expect(secretIn(answer.body)).toBeUndefined();
    expect(answer.body).toContain('Jemand anderes hat diese App gerade geändert.');
    expect((await findClientRow(t.db, clientId))!.secret_digest).toEqual(otherDigest);
  });

  test('the edit form saved while the client is being deleted: the not-found page, not a 500, and no change logged', async () => {
    const { clientId } = await makeClient(t);
    const { answer } = await whileChanging(clientId, 'delete', () => post(`/admin/oauthclients/${clientId}`, screen.orga, fullForm(clientId, screen.orga.csrfToken)));
    expect(answer.statusCode).toBe(404);
    expect(await findClientRow(t.db, clientId)).toBeUndefined();
    await t.app.securityEvents.settled();
    const changed = await t.db.selectFrom('security_events').select('details').where('event', '=', 'oauth.client.changed').execute();
    expect(changed.filter((e) => (e.details as { clientId?: string }).clientId === clientId)).toEqual([]);
  });
});
