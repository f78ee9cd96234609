/**
 * SPEC §5.2 steps 5–7: region restriction, the consent
 * page, its CSRF-protected decision, remembered consent and the code.
 */
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, test } from 'vitest';
import { makeRegion, makeUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { CALLBACK, formFields, makeClient, unescapeHtml } from '../helpers/oauth.ts';
import { logInAs, type TestSession } from '../helpers/session.ts';

const ISSUER = 'http://localhost:8080';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSW-cM1Y';

const t = useTestApp();
let clientId: string;

beforeAll(async () => {
  clientId = (await makeClient(t, { name: 'Wiki <Berlin>' })).clientId;
});

function query(overrides: Record<string, string> = {}): string {
  return new URLSearchParams({
    response_type: 'code', client_id: clientId, redirect_uri: CALLBACK, scope: 'openid profile', state: 's1',
    code_challenge: CHALLENGE, code_challenge_method: 'S256', ...overrides,
  }).toString();
}

async function freshSession(options: { regionIds?: number[] } = {}): Promise<TestSession & { userId: number }> {
  const user = await makeUser(t.db, options);
  return { ...(await logInAs(t.app, user)), userId: user.id };
}

function get(url: string, s: TestSession, lang = 'de') {
  return t.app.inject({ method: 'GET', url, headers: { cookie: s.cookie, 'accept-language': lang } });
}

function decide(s: TestSession, fields: Record<string, string>) {
  return t.app.inject({
    method: 'POST', url: '/oauth/authorize', headers: { cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(fields).toString(),
  });
}

function callbackParams(location: unknown): Record<string, string> {
  expect(typeof location).toBe('string');
  expect((location as string).startsWith(`${CALLBACK}?`)).toBe(true);
  return Object.fromEntries(new URL(location as string).searchParams);
}

describe('region restriction', () => {
  test('a user in none of the required regions gets the 403 page with a link back carrying access_denied', async () => {
    const [a, b, other] = [await makeRegion(t.db), await makeRegion(t.db), await makeRegion(t.db)];
    const restricted = (await makeClient(t, { requiredRegions: [a, b] })).clientId;
    const outsider = await freshSession({ regionIds: [other] });
    const response = await get(`/oauth/authorize?${query({ client_id: restricted })}`, outsider, 'en');
    expect(response.statusCode).toBe(403);
    expect(response.body).toContain('User not in required regions');
    const href = unescapeHtml(/id="oauth-error-back" href="([^"]+)"/.exec(response.body)![1]!);
    expect(callbackParams(href)).toEqual({ error: 'access_denied', error_description: 'User not in required regions', state: 's1', iss: ISSUER });

    const member = await freshSession({ regionIds: [b] });
    const ok = await get(`/oauth/authorize?${query({ client_id: restricted })}`, member);
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toContain('name="decision"');

    const open = await get(`/oauth/authorize?${query()}`, outsider);
    expect(open.statusCode).toBe(200);
  });
});

describe('consent', () => {
  test('the page names the client and each scope in plain words, German and English', async () => {
    const s = await freshSession();
    const de = await get(`/oauth/authorize?${query({ scope: 'openid profile' })}`, s);
    expect(de.statusCode).toBe(200);
    expect(de.body).toContain('Wiki &lt;Berlin&gt;');
    expect(de.body).toContain('Deinen vollständigen Namen und dein Profilbild');
    expect(de.body).toContain('Deine Nutzer-ID und deinen Vornamen');
    expect(de.body).not.toContain('Deine E-Mail-Adresse');
    const en = await get(`/oauth/authorize?${query({ scope: 'openid email regions' })}`, s, 'en');
    expect(en.body).toContain('Your email address');
    expect(en.body).toContain('The regions and working groups');
    expect(en.body).toContain('Allow');
    expect(en.body).toContain('<label class="inline" for="remember">Remember this choice</label>');
  });

  test('Deny sends access_denied; nothing is remembered', async () => {
    const s = await freshSession();
    const page = await get(`/oauth/authorize?${query()}`, s);
    const response = await decide(s, { ...formFields(page.body), decision: 'deny', remember: '1' });
    expect(callbackParams(response.headers.location)).toMatchObject({ error: 'access_denied', state: 's1', iss: ISSUER });
    expect(await t.db.selectFrom('oauth_consents').selectAll().where('user_id', '=', s.userId).execute()).toEqual([]);
  });

  test('Allow issues a code bound to the request, stored only as a digest; state is echoed byte-for-byte', async () => {
    const s = await freshSession();
    const state = 'ÿ€ &=+?#/'.repeat(16).slice(0, 128);
    const page = await get(`/oauth/authorize?${query({ state, nonce: 'n-1' })}`, s);
    const response = await decide(s, { ...formFields(page.body), decision: 'allow' });
    expect(response.statusCode).toBe(303);
    const p = callbackParams(response.headers.location);
    expect(Object.keys(p).sort()).toEqual(['code', 'iss', 'state']);
    expect(p.state).toBe(state);
    expect(p.iss).toBe(ISSUER);
    expect(p.code!.length).toBeGreaterThanOrEqual(22);
    const rows = await t.db.selectFrom('oauth_codes').selectAll().where('user_id', '=', s.userId).execute();
    expect(rows).toHaveLength(1);
    expect(Buffer.from(rows[0]!.code_digest).equals(createHash('sha256').update(p.code!).digest())).toBe(true);
    expect(rows[0]).toMatchObject({ redirect_uri: CALLBACK, scopes: ['openid', 'profile'], code_challenge: CHALLENGE, nonce: 'n-1', used_at: null });
    expect(rows[0]!.expires_at.getTime() - rows[0]!.created_at.getTime()).toBeGreaterThan(599_000);
    // Without "remember", the next request asks again.
    expect((await get(`/oauth/authorize?${query()}`, s)).statusCode).toBe(200);
  });

  test('Allow with remember skips the page for the same or fewer scopes; more scopes or prompt=consent ask again', async () => {
    const s = await freshSession();
    const page = await get(`/oauth/authorize?${query({ scope: 'openid profile' })}`, s);
    const response = await decide(s, { ...formFields(page.body), decision: 'allow', remember: '1' });
    expect(callbackParams(response.headers.location).code).toBeTruthy();

    const same = await get(`/oauth/authorize?${query({ scope: 'openid profile' })}`, s);
    expect(same.statusCode).toBe(303);
    expect(callbackParams(same.headers.location).code).toBeTruthy();
    const fewer = await get(`/oauth/authorize?${query({ scope: 'openid' })}`, s);
    expect(callbackParams(fewer.headers.location).code).toBeTruthy();
    const none = await get(`/oauth/authorize?${query({ scope: 'openid', prompt: 'none' })}`, s);
    expect(callbackParams(none.headers.location).code).toBeTruthy();

    const more = await get(`/oauth/authorize?${query({ scope: 'openid profile email' })}`, s);
    expect(more.statusCode).toBe(200);
    expect(more.body).toContain('name="decision"');
    const forced = await get(`/oauth/authorize?${query({ prompt: 'consent' })}`, s);
    expect(forced.statusCode).toBe(200);
    expect(formFields(forced.body).prompt).toBe('consent');
  });

  test('a forged decision (missing or wrong CSRF token) changes nothing', async () => {
    const s = await freshSession();
    const page = await get(`/oauth/authorize?${query()}`, s);
    const fields = formFields(page.body);
    for (const token of [undefined, 'wrong-token', '']) {
      const forged: Record<string, string> = { ...fields, decision: 'allow', remember: '1' };
      if (token === undefined) delete forged.csrf_token;
      else forged.csrf_token = token;
      const response = await decide(s, forged);
      expect(response.statusCode).toBe(403);
      expect(response.headers.location).toBeUndefined();
    }
    expect(await t.db.selectFrom('oauth_consents').selectAll().where('user_id', '=', s.userId).execute()).toEqual([]);
    expect(await t.db.selectFrom('oauth_codes').selectAll().where('user_id', '=', s.userId).execute()).toEqual([]);
  });
});
