import { describe, expect, it } from 'vitest';
import { ROLES } from '../../accounts/roles.ts';
import { addMonthsUtc, mayDeleteWallPost, type StoreRelation } from './stores.policy.ts';

const at = (iso: string) => new Date(iso);
const iso = (date: Date) => date.toISOString();

describe('addMonthsUtc', () => {
  it.each([
    ['2027-03-15T08:30:00.000Z', 1, '2027-04-15T08:30:00.000Z'],
    ['2027-01-31T10:00:00.000Z', 1, '2027-02-28T10:00:00.000Z'],
    ['2028-01-31T10:00:00.000Z', 1, '2028-02-29T10:00:00.000Z'],
    ['2028-01-29T23:59:59.999Z', 1, '2028-02-29T23:59:59.999Z'],
    ['2027-03-31T00:00:00.000Z', 1, '2027-04-30T00:00:00.000Z'],
    ['2027-08-31T12:00:00.000Z', 1, '2027-09-30T12:00:00.000Z'],
    ['2027-12-31T23:00:00.000Z', 1, '2028-01-31T23:00:00.000Z'],
    ['2027-12-15T00:00:00.000Z', 1, '2028-01-15T00:00:00.000Z'],
    ['2028-02-29T06:00:00.000Z', 12, '2029-02-28T06:00:00.000Z'],
    ['2027-01-31T10:00:00.000Z', 2, '2027-03-31T10:00:00.000Z'],
    ['2027-05-31T10:00:00.000Z', -1, '2027-04-30T10:00:00.000Z'],
  ] as const)('%s plus %i month(s) is %s (same time of day; the 31st ends on the last day of a shorter month)', (from, months, expected) => {
    expect(iso(addMonthsUtc(at(from), months))).toBe(expected);
  });

  it('does not change the date it is given', () => {
    const date = at('2027-01-31T10:00:00.000Z');
    addMonthsUtc(date, 1);
    expect(iso(date)).toBe('2027-01-31T10:00:00.000Z');
  });
});

describe('mayDeleteWallPost', () => {
  const manager = { id: 1, role: ROLES['store-manager'], verified: true };
  const managerOfStore: StoreRelation = { teamRole: 'manager', isAmbassador: false };
  const post = (createdAt: string) => ({ authorId: 2, createdAt: at(createdAt) });

  it('lets a manager remove another user\'s post exactly one calendar month after it was written, not a millisecond earlier', () => {
    for (const [createdAt, boundary] of [
      ['2027-03-15T08:30:00.000Z', '2027-04-15T08:30:00.000Z'],
      ['2027-01-31T10:00:00.000Z', '2027-02-28T10:00:00.000Z'],
      ['2028-01-31T10:00:00.000Z', '2028-02-29T10:00:00.000Z'],
    ] as const) {
      const oneMsEarlier = new Date(at(boundary).getTime() - 1);
      expect(mayDeleteWallPost(manager, managerOfStore, post(createdAt), oneMsEarlier), `${createdAt} at ${iso(oneMsEarlier)}`).toBe(false);
      expect(mayDeleteWallPost(manager, managerOfStore, post(createdAt), at(boundary)), `${createdAt} at ${boundary}`).toBe(true);
    }
  });

  it('never lets a member remove others\' posts, and always lets authors and orga remove at once', () => {
    const old = post('2020-01-01T00:00:00.000Z');
    const now = at('2027-01-01T00:00:00.000Z');
    expect(mayDeleteWallPost({ ...manager, role: ROLES.foodsaver }, { teamRole: 'member', isAmbassador: true }, old, now)).toBe(false);
    const fresh = post('2027-01-01T00:00:00.000Z');
    expect(mayDeleteWallPost({ ...manager, id: 2 }, { teamRole: 'member', isAmbassador: false }, fresh, now)).toBe(true);
    expect(mayDeleteWallPost({ ...manager, role: ROLES.orga }, { teamRole: undefined, isAmbassador: false }, fresh, now)).toBe(true);
    expect(mayDeleteWallPost(manager, managerOfStore, fresh, now)).toBe(false);
  });
});
