import { beforeAll, describe, expect, it } from 'vitest';
import { isFeatureActive } from '../../src/api/feature-toggles/feature-toggles.service.ts';
import { useTestApp } from '../helpers/fixture.ts';
import type { TestSession } from '../helpers/session.ts';

const t = useTestApp();
let orga: TestSession;
let foodsaver: TestSession;

beforeAll(async () => {
  orga = await t.as('orga');
  foodsaver = await t.as('ambassador');
});

async function storedRows() {
  return t.db.selectFrom('feature_toggles').selectAll().orderBy('identifier').execute();
}

describe('PATCH /api/feature-toggles/{featureToggle}', () => {
  it('sets the state given by newState and answers {identifier, isActive}', async () => {
    const on = await t.call('PATCH', '/api/feature-toggles/petitionBanner?newState=true', orga);
    expect(on.statusCode).toBe(200);
    expect(on.json()).toStrictEqual({ identifier: 'petitionBanner', isActive: true });
    expect(await isFeatureActive(t.db, 'petitionBanner')).toBe(true);
    const off = await t.call('PATCH', '/api/feature-toggles/petitionBanner?newState=false', orga);
    expect(off.json()).toStrictEqual({ identifier: 'petitionBanner', isActive: false });
    expect(await isFeatureActive(t.db, 'petitionBanner')).toBe(false);
  });

  it('flips the toggle when newState is omitted', async () => {
    const first = await t.call('PATCH', '/api/feature-toggles/basketPictures', orga); // default: on
    expect(first.json()).toStrictEqual({ identifier: 'basketPictures', isActive: false });
    const second = await t.call('PATCH', '/api/feature-toggles/basketPictures', orga);
    expect(second.json()).toStrictEqual({ identifier: 'basketPictures', isActive: true });
  });

  it('refuses newState in a JSON body (it belongs in the query) and switches nothing; any other body is ignored', async () => {
    const before = await storedRows();
    const refused = await t.call('PATCH', '/api/feature-toggles/webPushNotifications', orga, { newState: false });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ code: 'request.invalid', errors: [{ field: 'body/newState', message: 'belongs in the query: ?newState=true or ?newState=false' }] });
    expect(await storedRows()).toEqual(before);
    // 404 and 403 come first, as for every input of the operation.
    expect((await t.call('PATCH', '/api/feature-toggles/noSuchToggle', orga, { newState: false })).statusCode).toBe(404);
    expect((await t.call('PATCH', '/api/feature-toggles/webPushNotifications', foodsaver, { newState: false })).statusCode).toBe(403);
    const ignored = await t.call('PATCH', '/api/feature-toggles/webPushNotifications?newState=true', orga, { note: 'x' });
    expect(ignored.json()).toStrictEqual({ identifier: 'webPushNotifications', isActive: true });
  });

  it('answers 404 for an undefined toggle (case matters) and stores nothing', async () => {
    const before = await storedRows();
    for (const name of ['noSuchToggle', 'PetitionBanner']) {
      const response = await t.call('PATCH', `/api/feature-toggles/${name}?newState=true`, orga);
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ status: 404, code: 'feature-toggle.not-found' });
    }
    expect(await storedRows()).toEqual(before);
  });

  it('answers 403 to users who are not orga, and 403 (not 401) when logged out; nothing changes', async () => {
    const before = await storedRows();
    const notOrga = await t.call('PATCH', '/api/feature-toggles/petitionBanner?newState=true', foodsaver);
    expect(notOrga.statusCode).toBe(403);
    expect(notOrga.json()).toMatchObject({ code: 'auth.forbidden' });
    const anonymous = await t.call('PATCH', '/api/feature-toggles/petitionBanner?newState=true');
    expect(anonymous.statusCode).toBe(403);
    expect(anonymous.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(await storedRows()).toEqual(before);
  });

  it('enforces the pattern [a-zA-Z]+ with 400, never 500', async () => {
    for (const name of ['petition1', 'petition_banner', 'a%2Fb', '%00', 'x'.repeat(150) + '1']) {
      const response = await t.call('PATCH', `/api/feature-toggles/${name}`, orga);
      expect(response.statusCode, name).toBe(400);
      expect(response.json()).toMatchObject({ code: 'request.invalid' });
    }
  });

  it('refuses a newState that is not a boolean with 400, after the 404 and 403 checks', async () => {
    const bad = await t.call('PATCH', '/api/feature-toggles/petitionBanner?newState=maybe', orga);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].field).toMatch(/^querystring/);
    expect((await t.call('PATCH', '/api/feature-toggles/nothing?newState=maybe', orga)).statusCode).toBe(404);
    expect((await t.call('PATCH', '/api/feature-toggles/petitionBanner?newState=maybe', foodsaver)).statusCode).toBe(403);
  });
});

describe('PATCH /api/feature-toggles/{featureToggle}: query parameters', () => {
  it.each([
    ['a misspelled key', '?newstate=false', ['querystring/newstate']],
    ['a snake_case key', '?new_state=false', ['querystring/new_state']],
    ['the array form', '?newState[]=true', ['querystring/newState[]']],
    ['a known key and an unknown one', '?newState=false&force=1', ['querystring/force']],
    ['two unknown keys', '?a=1&b=2', ['querystring/a', 'querystring/b']],
  ])('refuses %s with 400 naming each unknown key, and the toggle keeps its state', async (_name, query, fields) => {
    expect((await t.call('PATCH', '/api/feature-toggles/webPushNotifications?newState=true', orga)).statusCode).toBe(200);
    const before = await storedRows();
    const response = await t.call('PATCH', `/api/feature-toggles/webPushNotifications${query}`, orga);
    expect(response.statusCode, response.body).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({ status: 400, code: 'request.invalid' });
    expect(response.json().errors).toEqual(fields.map((field) => ({ field, message: 'is not a parameter of this operation' })));
    expect(await storedRows()).toEqual(before);
    expect(await isFeatureActive(t.db, 'webPushNotifications')).toBe(true);
  });

  it('refuses an empty or repeated newState with 400 instead of flipping', async () => {
    expect((await t.call('PATCH', '/api/feature-toggles/webPushNotifications?newState=true', orga)).statusCode).toBe(200);
    const before = await storedRows();
    for (const query of ['?newState=', '?newState=false&newState=true', '?newState=0']) {
      const response = await t.call('PATCH', `/api/feature-toggles/webPushNotifications${query}`, orga);
      expect(response.statusCode, query).toBe(400);
      expect(response.json().errors[0].field, query).toBe('querystring/newState');
    }
    expect(await storedRows()).toEqual(before);
  });

  it('checks the query after 404 and 403, as every body and query', async () => {
    expect((await t.call('PATCH', '/api/feature-toggles/nothing?newstate=false', orga)).statusCode).toBe(404);
    expect((await t.call('PATCH', '/api/feature-toggles/petitionBanner?newstate=false', foodsaver)).statusCode).toBe(403);
  });
});

describe('GET /api/feature-toggles', () => {
  it('lists every defined toggle with its state', async () => {
    await t.call('PATCH', '/api/feature-toggles/petitionBanner?newState=true', orga);
    const response = await t.app.inject({ url: '/api/feature-toggles' });
    expect(response.statusCode).toBe(200);
    const list = response.json() as { identifier: string; isActive: boolean }[];
    expect(list).toContainEqual({ identifier: 'petitionBanner', isActive: true });
    expect(list.map((e) => Object.keys(e).sort())).toEqual(list.map(() => ['identifier', 'isActive']));
  });
});
