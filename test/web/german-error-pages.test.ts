/**
 * The error pages of the OAuth endpoints (an unknown client, a redirect URI
 * not registered, a request that should have been pushed, no access for the
 * member's regions, an untrusted logout request) and the generic error page
 * are German for a German browser: each says its German sentence, and no
 * English text of the pages' catalogue (src/web/**\/*.messages.ts) appears.
 * The English pages keep the messages of the specification ("Invalid
 * redirect_uri"); test/oauth/authorize.test.ts and others assert those.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import type { Messages } from '../../src/web/i18n.ts';
import { makeRegion, makeUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { CALLBACK, formFields, makeClient, obtainCode, TEST_VERIFIER, tokenRequest, unescapeHtml } from '../helpers/oauth.ts';
import { logInAs, type TestSession } from '../helpers/session.ts';

const t = useTestApp();
const WEB = path.resolve(import.meta.dirname, '../../src/web');
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSW-cM1Y';

let clientId: string;
let pushOnly: string;
let restricted: string;
let outsider: TestSession;
let idToken: string;
let english: string[];

/** Every English text of the pages that differs from its German one; a text with placeholders by its longest fixed part. */
async function englishTexts(): Promise<string[]> {
  const files = readdirSync(WEB, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.messages.ts'));
  const texts = new Set<string>();
  for (const file of files) {
    const module = await import(path.join(WEB, file)) as Record<string, Messages>;
    for (const messages of Object.values(module)) {
      for (const [key, english] of Object.entries(messages.en)) {
        if (english === messages.de[key]) continue;
        const fixed = english.split(/\{\w+\}/).map((part) => part.trim()).sort((a, b) => b.length - a.length)[0] ?? '';
        if (fixed.length >= 4) texts.add(fixed);
      }
    }
  }
  return [...texts];
}

/** What a reader sees: the text without tags, entities decoded, spaces collapsed. */
function visibleText(html: string): string {
  return unescapeHtml(html.replace(/<script[\s\S]*?<\/script>|<style[\s\S]*?<\/style>/g, ' ').replace(/<[^>]+>/g, ' ')).replace(/\s+/g, ' ');
}

function authorizeQuery(overrides: Record<string, string> = {}): string {
  return new URLSearchParams({
    response_type: 'code', client_id: clientId, redirect_uri: CALLBACK, scope: 'openid', state: 's',
    code_challenge: CHALLENGE, code_challenge_method: 'S256', ...overrides,
  }).toString();
}

function german(url: string, session?: TestSession) {
  return t.app.inject({ url, headers: { 'accept-language': 'de-DE,de;q=0.9', ...(session ? { cookie: session.cookie } : {}) } });
}

beforeAll(async () => {
  const client = await makeClient(t, { postLogoutRedirectUris: ['http://127.0.0.1:3000/logged-out'] });
  clientId = client.clientId;
  pushOnly = (await makeClient(t, { requirePushedAuthorizationRequests: true })).clientId;
  restricted = (await makeClient(t, { requiredRegions: [await makeRegion(t.db)] })).clientId;
  outsider = await logInAs(t.app, await makeUser(t.db, { regionIds: [await makeRegion(t.db)] }));
  const code = await obtainCode(t, { clientId, cookie: outsider.cookie, scope: 'openid' });
  const tokens = await tokenRequest(t, { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: TEST_VERIFIER, client_id: clientId, client_secret: client.secret! });
  idToken = (tokens.json() as { id_token?: string }).id_token ?? '';
  english = await englishTexts();
});

/** Each page: how to reach it, its status and the German sentence it must say. */
const PAGES: Array<{ name: string; status: number; says: string; reference?: string; open(): Promise<{ statusCode: number; body: string }> }> = [
  { name: 'authorization: unknown client', status: 400, says: 'Diese App ist hier nicht registriert (ungültige client_id).', reference: 'Invalid client_id', open: () => german('/oauth/authorize?client_id=unknown-client') },
  { name: 'authorization: redirect URI not registered', status: 400, says: 'Die Rücksprungadresse der App ist für sie nicht registriert (ungültige redirect_uri).', reference: 'Invalid redirect_uri', open: () => german(`/oauth/authorize?${authorizeQuery({ redirect_uri: 'https://evil.example/cb' })}`) },
  { name: 'authorization: unknown request_uri', status: 400, says: 'Die Anfrage der App ist unbekannt oder abgelaufen (ungültige request_uri).', reference: 'Invalid or expired request_uri', open: () => german(`/oauth/authorize?client_id=${clientId}&request_uri=urn%3Aietf%3Aparams%3Aoauth%3Arequest_uri%3Ax`) },
  { name: 'authorization: not pushed', status: 400, says: 'Diese App muss ihre Anfrage zuerst direkt an den Server schicken (Pushed Authorization Request).', reference: 'Pushed authorization request required', open: () => german(`/oauth/authorize?${authorizeQuery({ client_id: pushOnly })}`) },
  {
    name: 'authorization: a POST whose body is no form', status: 400, says: 'Die App hat ihre Anfrage nicht als Formular geschickt (application/x-www-form-urlencoded).',
    reference: 'The request body must be application/x-www-form-urlencoded',
    open: () => t.app.inject({ method: 'POST', url: '/oauth/authorize', payload: JSON.stringify({ client_id: clientId }), headers: { 'accept-language': 'de', 'content-type': 'application/json' } }),
  },
  { name: 'authorization: not in the required regions', status: 403, says: 'Du gehörst keinem der Bezirke oder Arbeitsgruppen an, für die diese App freigegeben ist.', reference: 'User not in required regions', open: () => german(`/oauth/authorize?${authorizeQuery({ client_id: restricted })}`, outsider) },
  {
    name: 'authorization: consent form expired',
    status: 403,
    says: 'Das Formular ist abgelaufen. Bitte starte die Anmeldung in der App noch einmal.',
    open: async () => {
      const consent = await german(`/oauth/authorize?${authorizeQuery({ prompt: 'consent' })}`, outsider);
      const fields = { ...formFields(consent.body), decision: 'allow', csrf_token: 'forged' };
      return t.app.inject({
        method: 'POST', url: '/oauth/authorize', payload: new URLSearchParams(fields).toString(),
        headers: { 'accept-language': 'de', 'content-type': 'application/x-www-form-urlencoded', cookie: outsider.cookie },
      });
    },
  },
  { name: 'logout: unknown client', status: 400, says: 'Diese App ist hier nicht registriert (ungültige client_id).', reference: 'Invalid client_id', open: () => german('/oauth/logout?client_id=nobody') },
  { name: 'logout: invalid id_token_hint', status: 400, says: 'Der id_token_hint ist ungültig.', reference: 'Invalid id_token_hint', open: () => german('/oauth/logout?id_token_hint=not.a.token') },
  { name: 'logout: client and hint disagree', status: 400, says: 'Die client_id passt nicht zum id_token_hint.', reference: 'client_id does not match the id_token_hint', open: () => german(`/oauth/logout?client_id=${pushOnly}&id_token_hint=${idToken}`) },
  { name: 'logout: a parameter twice', status: 400, says: 'Ein Parameter der Anfrage ist doppelt, zu lang oder enthält ein unzulässiges Zeichen.', reference: 'A parameter of the request is repeated, too long or holds a forbidden character.', open: () => german('/oauth/logout?state=a&state=b') },
  { name: 'not found', status: 404, says: 'Diese Seite gibt es nicht.', open: () => german('/no-such-page') },
];

describe('German error pages', () => {
  test('the test has what it needs: an ID token to disagree with, the English catalogue with the specification\'s messages', () => {
    expect(idToken.split('.')).toHaveLength(3);
    expect(english).toEqual(expect.arrayContaining(['Invalid client_id', 'Invalid redirect_uri', 'User not in required regions', 'This page does not exist.']));
  });

  test.each(PAGES.map((p) => [p.name, p] as const))('%s', async (_name, spec) => {
    const response = await spec.open();
    expect(response.statusCode).toBe(spec.status);
    expect(response.body).toContain('<html lang="de"');
    // The specification's English message stays on the page for the app's developers, marked as English.
    const reference = /<code lang="en" id="oauth-error-reference">([^<]*)<\/code>/.exec(response.body)?.[1];
    if (spec.reference !== undefined) expect(reference).toBe(spec.reference);
    else expect(reference).toBeUndefined();
    const text = visibleText(response.body.replace(/<code lang="en"[^>]*>[^<]*<\/code>/g, ' '));
    expect(text).toContain(spec.says);
    expect(english.filter((sentence) => text.includes(sentence))).toEqual([]);
  });

  test('in English the page states the specification\'s message once, without a reference line', async () => {
    const response = await t.app.inject({ url: `/oauth/authorize?${authorizeQuery({ redirect_uri: 'https://evil.example/cb' })}`, headers: { 'accept-language': 'en' } });
    expect(response.statusCode).toBe(400);
    expect(response.body).toContain('<p class="error" role="alert" id="oauth-error-message">Invalid redirect_uri</p>');
    expect(response.body).not.toContain('oauth-error-reference');
  });
});
