/**
 * After a restart: every write the server acknowledged is in the database
 * with its values (read with SQL), sessions and tokens still work (over
 * HTTP), and every refresh chain continues from its last acknowledged token.
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { refreshBody, type OAuthTarget } from '../scenarios/oauth.ts';
import { FORM, send } from '../scenarios/scenario.ts';
import type { Chain, Kind, Ledger } from './ledger.ts';

export interface Verdict {
  /** Acknowledged writes missing or holding other values, per kind. */
  lost: Partial<Record<Kind, string[]>>;
  /** Chains that could not go on from their last acknowledged token although they should have. */
  stuck: string[];
  /** Chains ended as RFC 9700 §4.14.2 demands: the last acknowledged token was rotated by an unanswered refresh, and the retry came after the grace period. */
  endedOutsideGrace: number;
  /** Chains whose unanswered refresh had rotated the token: the retry got that successor (single-successor semantics). */
  retriedInGrace: number;
}

function lose(v: Verdict, kind: Kind, what: string): void {
  (v.lost[kind] ??= []).push(what);
}

async function inBatches<T>(items: readonly T[], each: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += 16) await Promise.all(items.slice(i, i + 16).map(each));
}

async function verifyRows(db: pg.Pool, ledger: Ledger, v: Verdict): Promise<void> {
  const contents = new Map((await db.query<{ id: number; name: string; title: string; body: string }>(
    'select id, name, title, body from contents where id = any($1::int[])', [ledger.contents.map((c) => c.id)])).rows.map((r) => [r.id, r]));
  for (const c of ledger.contents) {
    const row = contents.get(c.id);
    if (!row || row.name !== c.name || row.title !== c.title || row.body !== c.body) lose(v, 'contents', `content ${c.id}: ${JSON.stringify(row)}`);
  }
  const baskets = new Map((await db.query<{ id: number; description: string; weight_in_grams: number }>(
    'select id, description, weight_in_grams from baskets where id = any($1::int[])', [[...ledger.baskets.keys()]])).rows.map((r) => [r.id, r]));
  for (const b of ledger.baskets.values()) {
    const row = baskets.get(b.id);
    const holds = (x: typeof b.acked | undefined) => x && row && row.description === x.description && row.weight_in_grams === x.weightInGrams;
    if (!row) lose(v, 'baskets', `basket ${b.id} is missing`);
    else if (!holds(b.acked) && !holds(b.unanswered)) lose(v, 'basket edits', `basket ${b.id} holds ${JSON.stringify(row)}, acknowledged ${JSON.stringify(b.acked)}`);
    else b.acked = { description: row.description, weightInGrams: row.weight_in_grams };
    b.unanswered = undefined;
  }
  const uploads = new Map((await db.query<{ uuid: string; filename: string; filesize: number; sha256: string }>(
    `select uuid::text, filename, filesize, encode(sha256(content), 'hex') as sha256 from uploads where uuid = any($1::uuid[])`,
    [ledger.uploads.map((u) => u.uuid)])).rows.map((r) => [r.uuid, r]));
  for (const u of ledger.uploads) {
    const row = uploads.get(u.uuid);
    if (!row || row.sha256 !== u.sha256 || row.filesize !== u.filesize || row.filename !== u.filename) lose(v, 'uploads', `upload ${u.uuid}: ${JSON.stringify(row)}`);
  }
}

async function verifyCodes(db: pg.Pool, ledger: Ledger, v: Verdict): Promise<void> {
  const digest = (code: string) => createHash('sha256').update(code).digest();
  const rows = new Map((await db.query<{ digest: string; used: boolean; grant_id: number | null }>(
    `select encode(code_digest, 'hex') as digest, used_at is not null as used, grant_id from oauth_codes where code_digest = any($1::bytea[])`,
    [ledger.codes.map(digest)])).rows.map((r) => [r.digest, r]));
  for (const code of ledger.codes) if (!rows.has(digest(code).toString('hex'))) lose(v, 'codes', `a code handed out is missing`);
  for (const chain of ledger.chains) {
    const row = rows.get(digest(chain.code).toString('hex'));
    if (!row?.used || row.grant_id !== chain.grantId) lose(v, 'exchanges', `the code of grant ${chain.grantId}: ${JSON.stringify(row)}`);
  }
}

/** Sessions: each acknowledged login's cookie still names its member. */
async function verifySessions(url: string, ledger: Ledger, v: Verdict): Promise<void> {
  await inBatches(ledger.sessions, async (s) => {
    const r = await send(`${url}/api/user/current`, { headers: { cookie: s.cookie } });
    if (r.status !== 200 || (JSON.parse(r.text) as { id?: number }).id !== s.userId) lose(v, 'sessions', `${s.email}'s session: ${r.status}`);
  });
}

async function refreshRows(db: pg.Pool, grantId: number): Promise<{ rows: number; revoked: boolean | undefined }> {
  const { rows } = await db.query<{ rows: number; revoked: boolean }>(
    `select (select count(*)::int from oauth_refresh_tokens where grant_id = g.id) as rows, g.revoked_at is not null as revoked
     from oauth_grants g where g.id = $1`, [grantId]);
  return { rows: rows[0]?.rows ?? 0, revoked: rows[0]?.revoked };
}

/**
 * A chain: its grant is live and holds one row per acknowledged rotation plus
 * the first (and one more if a refresh went unanswered); its last acknowledged
 * token refreshes — as a fresh rotation, or as a retry inside the grace period
 * that answers the unanswered refresh's successor — and that answer refreshes
 * again. Outside the grace period a token rotated by an unanswered refresh
 * revokes the family instead: correct, counted apart.
 */
async function verifyChain(db: pg.Pool, target: OAuthTarget, chain: Chain, graceEndsAt: number, v: Verdict): Promise<void> {
  const before = await refreshRows(db, chain.grantId);
  const expected = chain.rotations + 1;
  if (before.revoked !== false || before.rows < expected || before.rows > expected + (chain.unanswered ? 1 : 0)) {
    lose(v, 'refreshes', `grant ${chain.grantId}: ${before.rows} refresh-token rows, revoked ${before.revoked}, ${chain.rotations} rotations acknowledged`);
    return;
  }
  const userinfo = await send(target.child.url + target.userinfoPath, { headers: { authorization: `Bearer ${chain.accessToken}` } });
  if (userinfo.status !== 200) lose(v, 'exchanges', `grant ${chain.grantId}: userinfo with the last access token answered ${userinfo.status}`);
  const refresh = (token: string) => send(target.child.url + target.tokenPath, { method: 'POST', headers: { 'content-type': FORM }, body: refreshBody(target, token) });
  const first = await refresh(chain.token);
  if (first.status !== 200 && chain.unanswered && before.rows === expected + 1 && Date.now() >= graceEndsAt) {
    v.endedOutsideGrace += 1;
    chain.ended = 'revoked: retried after the grace period';
    return;
  }
  if (first.status === 200 && before.rows === expected + 1) v.retriedInGrace += 1;
  const second = first.status === 200 ? await refresh((JSON.parse(first.text) as { refresh_token: string }).refresh_token) : first;
  if (second.status !== 200) {
    v.stuck.push(`grant ${chain.grantId}: ${first.status === 200 ? 'its successor' : 'the last acknowledged token'} answered ${second.status} ${second.text.slice(0, 120)}`);
    chain.ended = `refused with ${second.status} after the restart`;
    return;
  }
  const tokens = JSON.parse(second.text) as { refresh_token: string; access_token: string };
  Object.assign(chain, { token: tokens.refresh_token, accessToken: tokens.access_token, unanswered: false, rotations: (await refreshRows(db, chain.grantId)).rows - 1 });
}

/** `graceEndsAt`: until then a token rotated by a refresh unanswered at the kill is certainly inside its grace period. */
export async function verify(db: pg.Pool, target: OAuthTarget, ledger: Ledger, graceEndsAt: number): Promise<Verdict> {
  const v: Verdict = { lost: {}, stuck: [], endedOutsideGrace: 0, retriedInGrace: 0 };
  // Chains first: their retries are to come inside the grace period.
  await inBatches(ledger.chains.filter((c) => c.ended === undefined), (c) => verifyChain(db, target, c, graceEndsAt, v));
  await verifyRows(db, ledger, v);
  await verifyCodes(db, ledger, v);
  await verifySessions(target.child.url, ledger, v);
  return v;
}
