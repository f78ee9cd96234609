/**
 * The soak's concurrent writers, one loop per writer, each recording what the
 * server acknowledged in the {@link Ledger}: logins (sessions), content
 * entries, baskets and their edits, authorization codes, code exchanges,
 * refresh-token chains and uploads. The API has no sign-up (members come from
 * the demo dataset or the CLI), so a login is the member-side write.
 */
import { createHash, randomBytes } from 'node:crypto';
import { DEMO_PASSWORD } from '../../src/demo/demo-data.ts';
import { codeBody, refreshBody, type OAuthTarget } from '../scenarios/oauth.ts';
import { FORM } from '../scenarios/scenario.ts';
import { cookieOf, grantOf, jsonHeaders, pause, repeat, write, type Member, type Phase } from './client.ts';
import type { BasketValues, Ledger } from './ledger.ts';

export interface WriterContext {
  url: string;
  ledger: Ledger;
  phase: Phase;
  target: OAuthTarget;
  /** Cookie of the member whose remembered consent lets `authorizePath` hand out codes. */
  oauthCookie: string;
  authorizePath: string;
  orga: Member;
  members: Member[];
}

/** Logs in a demo member; `undefined` when the login was not acknowledged. */
export async function logIn(c: Pick<WriterContext, 'url' | 'ledger'>, email: string): Promise<Member | undefined> {
  const r = await write(c.ledger, 'sessions', `${c.url}/api/user/login`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: DEMO_PASSWORD, rememberMe: false }),
  });
  if (!r.ok) return undefined;
  const user = JSON.parse(r.answer.text) as { id: number; csrfToken: string };
  const member = { email, userId: user.id, cookie: cookieOf(r.answer), csrfToken: user.csrfToken };
  c.ledger.sessions.push({ email, userId: user.id, cookie: member.cookie });
  c.ledger.acked('sessions');
  return member;
}

export function sessionWriter(c: WriterContext, w: number): Promise<void> {
  let n = w;
  return repeat(c.phase, async () => { await logIn(c, c.members[n++ % c.members.length]!.email); });
}

export function contentWriter(c: WriterContext, w: number): Promise<void> {
  let n = 0;
  return repeat(c.phase, async () => {
    const entry = { name: `soak-${w}-${n}`, title: `Soak ${w}/${n} ${randomBytes(4).toString('hex')}`, body: `<p>written by writer ${w}, #${n}</p>` };
    n += 1;
    const r = await write(c.ledger, 'contents', `${c.url}/api/contents`, { method: 'POST', headers: jsonHeaders(c.orga), body: JSON.stringify(entry) });
    if (!r.ok) return;
    c.ledger.contents.push({ id: (JSON.parse(r.answer.text) as { id: number }).id, ...entry });
    c.ledger.acked('contents');
  });
}

/** Creates a basket every fourth step and edits the writer's latest one otherwise (description and weight together). */
export function basketWriter(c: WriterContext, w: number): Promise<void> {
  const member = c.members[w % c.members.length]!;
  let latest: number | undefined;
  let n = 0;
  return repeat(c.phase, async () => {
    const values: BasketValues = { description: `Soak basket ${w}/${n} ${randomBytes(4).toString('hex')}`, weightInGrams: (n * 37) % 100_000 };
    n += 1;
    const record = latest === undefined ? undefined : c.ledger.baskets.get(latest);
    if (!record || n % 4 === 1) {
      const body = { ...values, contactTypes: [1], lat: 52.5 + w / 100, lon: 13.4, lifeTimeInDays: 7 };
      const r = await write(c.ledger, 'baskets', `${c.url}/api/baskets`, { method: 'POST', headers: jsonHeaders(member), body: JSON.stringify(body) });
      if (!r.ok) return;
      latest = (JSON.parse(r.answer.text) as { id: number }).id;
      c.ledger.baskets.set(latest, { id: latest, acked: values, unanswered: undefined });
      c.ledger.acked('baskets');
      return;
    }
    if (record.unanswered) return void (await pause(20));
    const r = await write(c.ledger, 'basket edits', `${c.url}/api/baskets/${record.id}`, { method: 'PATCH', headers: jsonHeaders(member), body: JSON.stringify(values) });
    if (r.ok) {
      record.acked = values;
      c.ledger.acked('basket edits');
    } else if (!r.answer) {
      record.unanswered = values;
    }
  });
}

/** A code from the authorization endpoint (remembered consent), then its exchange: each exchange starts a refresh chain. */
export function exchangeWriter(c: WriterContext): Promise<void> {
  return repeat(c.phase, async () => {
    // The authorization endpoint acknowledges a stored code with a 303 naming it.
    const minted = await write(c.ledger, 'codes', c.url + c.authorizePath, { headers: { cookie: c.oauthCookie } }, 303);
    const code = minted.ok ? /[?&]code=([^&]+)/.exec(minted.answer.headers.get('location') ?? '')?.[1] : undefined;
    if (code === undefined) return;
    c.ledger.codes.push(decodeURIComponent(code));
    c.ledger.acked('codes');
    const r = await write(c.ledger, 'exchanges', c.url + c.target.tokenPath, {
      method: 'POST', headers: { 'content-type': FORM }, body: codeBody(c.target, decodeURIComponent(code)),
    });
    if (!r.ok) return;
    const tokens = JSON.parse(r.answer.text) as { access_token: string; refresh_token: string };
    c.ledger.chains.push({ code: decodeURIComponent(code), grantId: grantOf(tokens.access_token), token: tokens.refresh_token, accessToken: tokens.access_token, rotations: 0, unanswered: false });
    c.ledger.acked('exchanges');
  });
}

/** Refreshes the chains `i % writers === w`, round robin; a chain whose answer never came is left for the check. */
export function refreshWriter(c: WriterContext, w: number, writers: number): Promise<void> {
  let k = 0;
  return repeat(c.phase, async () => {
    const mine = c.ledger.chains.filter((chain, i) => i % writers === w && !chain.unanswered && chain.ended === undefined);
    const chain = mine[k++ % Math.max(mine.length, 1)];
    if (!chain) return void (await pause(20));
    const r = await write(c.ledger, 'refreshes', c.url + c.target.tokenPath, { method: 'POST', headers: { 'content-type': FORM }, body: refreshBody(c.target, chain.token) });
    if (!r.ok) {
      if (!r.answer) chain.unanswered = true;
      else {
        chain.ended = `refused with ${r.answer.status} during the load`;
        c.ledger.brokenChains.push(`grant ${chain.grantId}: its last acknowledged refresh token was refused with ${r.answer.status}: ${r.answer.text.slice(0, 120)}`);
      }
      return;
    }
    const tokens = JSON.parse(r.answer.text) as { access_token: string; refresh_token: string };
    Object.assign(chain, { token: tokens.refresh_token, accessToken: tokens.access_token, rotations: chain.rotations + 1 });
    c.ledger.acked('refreshes');
  });
}

/** Small text files (stored byte for byte); a member at the upload rate limit (429) is skipped for the rest of the phase. */
export function uploadWriter(c: WriterContext, w: number): Promise<void> {
  let n = 0;
  const limited = new Set<number>();
  return repeat(c.phase, async () => {
    const index = (w + n) % c.members.length;
    n += 1;
    if (limited.has(index)) return void (limited.size === c.members.length ? await pause(200) : undefined);
    const content = Buffer.from(`soak upload ${w}/${n} ${randomBytes(16).toString('hex')}\n`, 'utf8');
    const filename = `soak-${w}-${n}.txt`;
    const r = await write(c.ledger, 'uploads', `${c.url}/api/uploads`, {
      method: 'POST', headers: jsonHeaders(c.members[index]!), body: JSON.stringify({ filename, body: content.toString('base64') }),
    });
    if (r.answer?.status === 429) limited.add(index);
    if (!r.ok) return;
    const info = JSON.parse(r.answer.text) as { uuid: string; filesize: number };
    c.ledger.uploads.push({ uuid: info.uuid, filesize: info.filesize, filename, sha256: createHash('sha256').update(content).digest('hex') });
    c.ledger.acked('uploads');
  });
}
