/**
 * Demo objects of the sharing areas (SPEC §9):
 * baskets with an open and a withdrawn request, a poll that has not started
 * and one that has, and the feature toggles (petitionBanner switched on).
 * Times are relative to the moment of loading and reach far enough ahead for
 * the demo to stay usable for weeks: baskets live the longest lifetime allowed
 * (README's curl examples use basket 1), the poll not started opens in 60 days.
 */
import { createBasket, requestBasket, withdrawRequest } from '../api/baskets/baskets.service.ts';
import { saveToggleState } from '../api/feature-toggles/feature-toggles.repository.ts';
import { FEATURE_TOGGLES } from '../api/feature-toggles/feature-toggles.service.ts';
import { valuesOfType } from '../api/polls/polls.policy.ts';
import { countEligibleVoters, insertPoll, replaceOptions } from '../api/polls/polls.repository.ts';
import { systemClock } from '../clock.ts';
import type { Executor } from '../db/executor.ts';

interface UserRef { id: number; email: string }
interface DemoInput { regions: Array<{ id: number; name: string }>; users: UserRef[] }

export interface DemoSharing {
  baskets: Array<{ id: number; description: string; creator: UserRef; until: string;
    requests: Array<{ user: UserRef; status: number; statusName: string }> }>;
  polls: Array<{ id: number; name: string; regionId: number; author: UserRef; startDate: string; endDate: string; hasStarted: boolean }>;
  featureToggles: Array<{ identifier: string; isActive: boolean }>;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** The demo calls the services without a request: there is no query to check. */
const NO_QUERY = (): void => undefined;
/** The schema's maximum `lifeTimeInDays`. */
const MAX_BASKET_LIFETIME_DAYS = 21;

export async function loadSharingDemo(db: Executor, input: DemoInput): Promise<DemoSharing> {
  const user = (email: string): UserRef => {
    const found = input.users.find((u) => u.email === email);
    if (!found) throw new Error(`demo user ${email} missing`);
    return { id: found.id, email: found.email };
  };
  const regionId = (name: string) => input.regions.find((r) => r.name === name)!.id;
  return {
    baskets: await loadBaskets(db, user('foodsharer@example.org'), user('foodsaver@example.org'), user('koeln@example.org')),
    polls: await loadPolls(db, regionId('Berlin'), user('ambassador@example.org')),
    featureToggles: await loadToggles(db, user('orga@example.org')),
  };
}

async function loadBaskets(db: Executor, frieda: UserRef, fabian: UserRef, klara: UserRef): Promise<DemoSharing['baskets']> {
  const bread = await createBasket(db, systemClock, frieda, {
    description: 'Zwei Laibe Sauerteigbrot und sechs Brötchen vom Vortag, abzuholen in Kreuzberg.',
    contactTypes: [1, 2], mobile: '+49 170 1234567', lat: 52.4986, lon: 13.4030, lifeTimeInDays: MAX_BASKET_LIFETIME_DAYS, weightInGrams: 1800,
  });
  const veggies = await createBasket(db, systemClock, fabian, {
    description: 'Eine Kiste Gemüse: Möhren, Lauch und etwas Kohlrabi.',
    contactTypes: [1], lat: 52.5163, lon: 13.3777, lifeTimeInDays: MAX_BASKET_LIFETIME_DAYS, weightInGrams: 4000,
  });
  await requestBasket(db, systemClock, fabian, bread.id, NO_QUERY);
  await requestBasket(db, systemClock, klara, bread.id, NO_QUERY);
  await withdrawRequest(db, systemClock, klara, bread.id, NO_QUERY);
  return [
    { id: bread.id, description: bread.description, creator: frieda, until: bread.until, requests: [
      { user: fabian, status: 0, statusName: 'sent' }, { user: klara, status: 5, statusName: 'withdrawn' },
    ] },
    { id: veggies.id, description: veggies.description, creator: fabian, until: veggies.until, requests: [] },
  ];
}

async function loadPolls(db: Executor, berlin: number, alma: UserRef): Promise<DemoSharing['polls']> {
  const now = Date.now();
  const specs = [
    { name: 'Termin für das Sommerfest', description: 'Wann feiern wir gemeinsam?', type: 0, scope: 0,
      start: now + 60 * DAY_MS, end: now + 74 * DAY_MS, options: ['Samstag, 14. Juni', 'Samstag, 21. Juni', 'Sonntag, 22. Juni'] },
    { name: 'Neue Abholregeln', description: 'Wie findet ihr die neuen Abholregeln?', type: 2, scope: 1,
      start: now - DAY_MS, end: now + 90 * DAY_MS, options: ['Abholung nur mit Anmeldung', 'Höchstens zwei Personen pro Abholung'] },
  ];
  const polls: DemoSharing['polls'] = [];
  for (const spec of specs) {
    const startDate = new Date(spec.start);
    const endDate = new Date(spec.end);
    // The repository directly, not createPoll(), which opens its own transaction: this is part of the demo's one.
    const id = await insertPoll(db, {
      regionId: berlin, authorId: alma.id, name: spec.name, description: spec.description, scope: spec.scope, type: spec.type,
      startDate, endDate, shuffleOptions: false, eligibleVotesCount: await countEligibleVoters(db, berlin, spec.scope),
    }, new Date(now));
    await replaceOptions(db, id, spec.options, valuesOfType(spec.type));
    polls.push({ id, name: spec.name, regionId: berlin, author: alma, startDate: startDate.toISOString(), endDate: endDate.toISOString(), hasStarted: spec.start <= now });
  }
  return polls;
}

async function loadToggles(db: Executor, orga: UserRef): Promise<DemoSharing['featureToggles']> {
  const states: Record<string, boolean> = { ...FEATURE_TOGGLES, petitionBanner: true };
  for (const [identifier, isActive] of Object.entries(states)) await saveToggleState(db, identifier, isActive, orga.id, new Date());
  return Object.entries(states).map(([identifier, isActive]) => ({ identifier, isActive }));
}
