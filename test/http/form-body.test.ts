/**
 * Form bodies are decoded strictly (src/http/form-body.ts): bytes that are not
 * UTF-8, a `%` that begins no escape, or escapes that spell no UTF-8, answer 400 in the vocabulary of
 * where the form went, and change nothing; a repeated field and a field
 * named `__proto__` stay plain data.
 */
import { describe, expect, test } from 'vitest';
import { parseFormBody } from '../../src/http/form-body.ts';
import { findClientRow } from '../../src/oauth/clients/clients.repository.ts';
import { makeUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { makeClient } from '../helpers/oauth.ts';

const t = useTestApp();
const FORM = 'application/x-www-form-urlencoded';
const MALFORMED: (string | Buffer)[] = ['name=%ED%A0%80', 'name=%zz', 'name=100%', 'name=%C3', 'name=%FF%FE',
  Buffer.from('name=Garden\xff\xfeGnome', 'latin1'), Buffer.from('name=\xed\xa0\x80', 'latin1'), Buffer.from('name=\xc3', 'latin1')];
const MESSAGE = 'The form is malformed: it must be UTF-8, and each % must begin a percent-escape (%XX) of UTF-8.';

describe('a malformed form', () => {
  test('is 400 invalid_request at the OAuth endpoints, with what is wrong', async () => {
    for (const url of ['/oauth/token', '/oauth/par', '/oauth/revoke', '/oauth/introspect', '/oauth/device_authorization', '/oauth/userinfo']) {
      for (const payload of MALFORMED) {
        const body = Buffer.concat([Buffer.from('grant_type=authorization_code&'), Buffer.from(payload)]);
        const answer = await t.app.inject({ method: 'POST', url, payload: body, headers: { 'content-type': FORM } });
        expect(answer.statusCode, `${url} ${payload.toString('latin1')}`).toBe(400);
        expect(answer.json(), `${url} ${payload.toString('latin1')}`).toEqual({ error: 'invalid_request', error_description: MESSAGE });
      }
    }
  });

  test('is the 400 page on the site\'s forms, and the admin form saves nothing', async () => {
    const orga = await t.logIn(await makeUser(t.db, { role: 'orga' }));
    const { clientId } = await makeClient(t);
    const before = await findClientRow(t.db, clientId);
    for (const url of ['/login', '/device', '/password/forgot', `/admin/oauthclients/${clientId}`]) {
      for (const name of [Buffer.from('%ED%A0%80'), Buffer.from('Garden\xff\xfeGnome', 'latin1')]) {
        const answer = await t.app.inject({
          method: 'POST', url, payload: Buffer.concat([Buffer.from(`csrf_token=${orga.csrfToken}&name=`), name]),
          headers: { 'content-type': FORM, cookie: orga.cookie },
        });
        expect(answer.statusCode, url).toBe(400);
        expect(answer.headers['content-type'], url).toBe('text/html; charset=utf-8');
        expect(answer.body, url).toContain('Die Anfrage ist ungültig.');
      }
    }
    expect(await findClientRow(t.db, clientId)).toEqual(before);
  });

  test('a password in bytes that are not UTF-8 changes nothing: two such byte strings were one password', async () => {
    const member = await makeUser(t.db);
    const before = await t.db.selectFrom('users').select('password_hash').where('id', '=', member.id).executeTakeFirstOrThrow();
    const session = await t.logIn(member);
    const answer = await t.app.inject({
      method: 'POST', url: '/settings/security/password', headers: { 'content-type': FORM, cookie: session.cookie },
      payload: Buffer.concat([Buffer.from(`csrf_token=${session.csrfToken}&current_password=${encodeURIComponent(member.password)}&new_password=Garden`),
        Buffer.from('\xff\xfe', 'latin1'), Buffer.from('Gnome-42')]),
    });
    expect(answer.statusCode).toBe(400);
    expect(await t.db.selectFrom('users').select('password_hash').where('id', '=', member.id).executeTakeFirstOrThrow()).toEqual(before);
  });
});

describe('a well-formed form', () => {
  test('decodes escapes, plus signs and UTF-8; keeps repeated fields and odd names as data', () => {
    const fields = parseFormBody(Buffer.from('a=%C3%BC+b&a=2&__proto__=x&constructor=y&empty=&bare&%E2%82%AC=euro'));
    expect(Object.getPrototypeOf(fields)).toBeNull();
    expect({ ...fields }).toEqual({ a: ['ü b', '2'], ['__proto__']: 'x', constructor: 'y', empty: '', bare: '', '€': 'euro' });
  });

  test('has no limit on the number of fields below the body limit', () => {
    expect(Object.keys(parseFormBody(Buffer.from(Array.from({ length: 5000 }, (_, i) => `f${i}=1`).join('&'))))).toHaveLength(5000);
  });

  test('takes UTF-8 that a client sent without escapes', () => {
    expect({ ...parseFormBody(Buffer.from('name=Gärtner €')) }).toEqual({ name: 'Gärtner €' });
  });
});
