/**
 * Demo objects of the community areas (SPEC §9):
 * stores with teams, wall posts (one older than a month) and pickup slots
 * (future, full, past); quizzes with sessions of each status; content
 * entries; a region pin; a report. Times are relative to the moment of loading.
 */
import { insertContent } from '../api/contents/contents.repository.ts';
import { insertQuiz, insertQuizSession } from '../api/quiz/quiz.repository.ts';
import { upsertRegionPin } from '../api/region-pins/region-pins.repository.ts';
import { insertReport } from '../api/reports/reports.repository.ts';
import { insertPickupSlot, insertSignup } from '../api/stores/stores.pickups.repository.ts';
import { insertStore, setTeamRole } from '../api/stores/stores.repository.ts';
import type { StoreTeamRole } from '../api/stores/stores.tables.ts';
import { insertWallPost } from '../api/stores/stores.wall.repository.ts';
import type { Executor } from '../db/executor.ts';

interface UserRef { id: number; email: string }
export interface DemoStore {
  id: number; name: string; regionId: number;
  managers: UserRef[]; members: UserRef[]; standby: UserRef[];
  posts: Array<{ id: number; authorId: number; text: string; createdAt: string }>;
  pickups: Array<{ id: number; at: string; capacity: number; signedUp: Array<{ userId: number; isConfirmed: boolean }> }>;
}
export interface DemoCommunity {
  stores: DemoStore[];
  quizzes: Array<{ id: number; name: string; sessions: Array<{ id: number; foodsaverId: number; status: number; statusName: string }> }>;
  contents: Array<{ id: number; name: string; title: string }>;
  regionPins: Array<{ regionId: number; lat: number; lon: number; description: string; status: number }>;
  reports: Array<{ id: number; reporter: UserRef; reported: UserRef; reason: string }>;
}

/** What the accounts part of the demo created; users are found by email. */
export interface DemoBase {
  regions: ReadonlyArray<{ id: number; name: string }>;
  users: ReadonlyArray<UserRef>;
}

const DAY_MS = 86_400_000;

export async function loadCommunityDemo(db: Executor, base: DemoBase, now = new Date()): Promise<DemoCommunity> {
  const user = (email: string): UserRef => {
    const found = base.users.find((u) => u.email === email);
    if (!found) throw new Error(`demo user ${email} is missing`);
    return { id: found.id, email: found.email };
  };
  const regionId = (name: string): number => base.regions.find((r) => r.name === name)!.id;
  const people = {
    foodsharer: user('foodsharer@example.org'), foodsaver: user('foodsaver@example.org'),
    manager: user('storemanager@example.org'), ambassador: user('ambassador@example.org'),
    orga: user('orga@example.org'), koeln: user('koeln@example.org'),
  };
  const berlin = regionId('Berlin');
  const stores = await loadStores(db, people, berlin, now);
  return {
    stores,
    quizzes: await loadQuizzes(db, people, now),
    contents: await loadContents(db, now),
    regionPins: [await loadPin(db, berlin, now)],
    reports: [await loadReport(db, people.manager, people.foodsharer, now)],
  };
}

type People = Record<'foodsharer' | 'foodsaver' | 'manager' | 'ambassador' | 'orga' | 'koeln', UserRef>;

async function loadStores(db: Executor, people: People, berlin: number, now: Date): Promise<DemoStore[]> {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const at = (days: number, hour: number) => new Date(today + days * DAY_MS + hour * 3_600_000);

  const store = async (name: string, region: number, team: Record<StoreTeamRole, UserRef[]>): Promise<DemoStore> => {
    const id = await insertStore(db, { name, regionId: region, address: 'Oranienstraße 1, 10999 Berlin' });
    for (const role of ['manager', 'member', 'standby'] as const) {
      for (const u of team[role]) await setTeamRole(db, id, u.id, role, now);
    }
    return { id, name, regionId: region, managers: team.manager, members: team.member, standby: team.standby, posts: [], pickups: [] };
  };
  const bioMarkt = await store('Bio-Markt Kreuzberg', berlin, { manager: [people.manager], member: [people.foodsaver], standby: [people.ambassador] });
  const baeckerei = await store('Bäckerei Sonnenschein', berlin, { manager: [people.manager], member: [people.ambassador], standby: [people.foodsaver] });

  const post = async (s: DemoStore, author: UserRef, text: string, createdAt: Date) => {
    const id = await insertWallPost(db, { storeId: s.id, authorId: author.id, text, createdAt });
    s.posts.push({ id, authorId: author.id, text, createdAt: createdAt.toISOString() });
  };
  await post(bioMarkt, people.foodsaver, 'Die Kisten stehen jetzt hinten im Lager.', new Date(now.getTime() - 40 * DAY_MS));
  await post(bioMarkt, people.manager, 'Bitte ab sofort über den Hintereingang abholen.', new Date(now.getTime() - 3 * DAY_MS));
  await post(bioMarkt, people.foodsaver, 'Heute war viel Brot dabei, danke an alle!', new Date(now.getTime() - 3_600_000));
  await post(baeckerei, people.ambassador, 'Neue Abholzeit ab Montag: 18 Uhr.', new Date(now.getTime() - 2 * DAY_MS));

  const pickup = async (s: DemoStore, when: Date, capacity: number, signedUp: Array<{ user: UserRef; isConfirmed: boolean }>) => {
    const id = await insertPickupSlot(db, { storeId: s.id, at: when, capacity });
    for (const entry of signedUp) await insertSignup(db, { slotId: id, userId: entry.user.id, isConfirmed: entry.isConfirmed, at: now });
    s.pickups.push({ id, at: when.toISOString(), capacity, signedUp: signedUp.map((e) => ({ userId: e.user.id, isConfirmed: e.isConfirmed })) });
  };
  // Future slots lie 2 to 9 weeks ahead, so that the demo keeps free and full future pickups for a while.
  await pickup(bioMarkt, at(-1, 17), 2, [{ user: people.foodsaver, isConfirmed: true }]);
  await pickup(bioMarkt, at(14, 17), 2, [{ user: people.manager, isConfirmed: true }]);
  await pickup(bioMarkt, at(30, 17), 1, [{ user: people.manager, isConfirmed: true }]);
  await pickup(bioMarkt, at(60, 17), 3, []);
  await pickup(baeckerei, at(21, 18), 2, []);

  return [bioMarkt, baeckerei];
}

const STATUS_NAMES = ['running', 'passed', 'failed'] as const;

async function loadQuizzes(db: Executor, people: Record<'foodsaver' | 'manager' | 'ambassador', UserRef>, now: Date): Promise<DemoCommunity['quizzes']> {
  const specs = [
    { name: 'Foodsaver-Quiz', maxFailure: 3, timed: 10, untimed: 20 },
    { name: 'Betriebsverantwortlichen-Quiz', maxFailure: 2, timed: 10, untimed: 20 },
    { name: 'Botschafter-Quiz', maxFailure: 1, timed: 15, untimed: 25 },
  ];
  const quizzes: DemoCommunity['quizzes'] = [];
  for (const spec of specs) {
    const id = await insertQuiz(db, {
      name: spec.name, description: `<p>Fragen zum ${spec.name}.</p>`, is_description_html_encoded: true,
      max_failure_points: spec.maxFailure, question_count_timed: spec.timed, question_count_untimed: spec.untimed,
    });
    quizzes.push({ id, name: spec.name, sessions: [] });
  }
  const session = async (quizIndex: number, who: UserRef, status: 0 | 1 | 2, daysAgo: number) => {
    const quiz = quizzes[quizIndex]!;
    const start = new Date(now.getTime() - daysAgo * DAY_MS);
    const id = await insertQuizSession(db, {
      foodsaver_id: who.id, quiz_id: quiz.id, status, questions_answered: status === 0 ? 4 : 10,
      start_time: start, end_time: status === 0 ? null : new Date(start.getTime() + 15 * 60_000),
      failure_points: status === 2 ? specs[quizIndex]!.maxFailure + 1 : 0, max_failure_points: specs[quizIndex]!.maxFailure,
      is_timed: true, is_test: false,
    });
    quiz.sessions.push({ id, foodsaverId: who.id, status, statusName: STATUS_NAMES[status] });
  };
  await session(0, people.foodsaver, 1, 60);
  await session(1, people.foodsaver, 2, 10);
  await session(1, people.foodsaver, 0, 0);
  await session(0, people.manager, 1, 400);
  await session(1, people.manager, 1, 300);
  await session(2, people.ambassador, 0, 1);
  return quizzes;
}

async function loadContents(db: Executor, now: Date): Promise<DemoCommunity['contents']> {
  const entries = [
    { name: 'impressum', title: 'Impressum', body: '<p>Foodsharing Demo e. V., Musterstraße 1, 10115 Berlin</p>' },
    { name: 'datenschutz', title: 'Datenschutzerklärung', body: '<p>Wir speichern nur, was die Plattform braucht.</p>' },
    { name: 'faq', title: 'Häufige Fragen', body: '<h2>Wie werde ich Foodsaver?</h2><p>Quiz bestehen, Einführung machen.</p>' },
  ];
  const result: DemoCommunity['contents'] = [];
  for (const entry of entries) {
    result.push({ id: await insertContent(db, { ...entry, lastModified: now }), name: entry.name, title: entry.title });
  }
  return result;
}

async function loadPin(db: Executor, regionId: number, now: Date): Promise<DemoCommunity['regionPins'][number]> {
  const pin = { lat: 52.520008, lon: 13.404954, description: 'Fairteiler am Alexanderplatz', status: 1 };
  await upsertRegionPin(db, { region_id: regionId, ...pin }, now);
  return { regionId, ...pin };
}

async function loadReport(db: Executor, reporter: UserRef, reported: UserRef, now: Date): Promise<DemoCommunity['reports'][number]> {
  const reason = 'Abholung nicht wahrgenommen';
  const id = await insertReport(db, { reporterId: reporter.id, reportedId: reported.id, reason, message: 'Ohne Absage nicht erschienen.', createdAt: now });
  return { id, reporter, reported, reason };
}

/** Text lines for the CLI's `demo` command (the `--json` output carries the whole {@link DemoCommunity}). */
export function describeCommunityDemo(community: DemoCommunity): string[] {
  return [
    'Stores:',
    ...community.stores.map((s) => `  ${String(s.id).padStart(3)}  ${s.name}: managers ${s.managers.map((u) => u.id).join(',')}, `
      + `members ${s.members.map((u) => u.id).join(',')}, standby ${s.standby.map((u) => u.id).join(',')}; `
      + `posts ${s.posts.map((p) => p.id).join(',')}; pickups ${s.pickups.map((p) => p.at).join(', ')}`),
    'Quizzes:',
    ...community.quizzes.map((q) => `  ${String(q.id).padStart(3)}  ${q.name}: sessions ${q.sessions.map((x) => `${x.id} (user ${x.foodsaverId}, ${x.statusName})`).join(', ')}`),
    'Contents:',
    ...community.contents.map((c) => `  ${String(c.id).padStart(3)}  ${c.name}: ${c.title}`),
    'Region pins:',
    ...community.regionPins.map((p) => `       region ${p.regionId}: ${p.lat}, ${p.lon} ${p.description}`),
    'Reports:',
    ...community.reports.map((r) => `  ${String(r.id).padStart(3)}  ${r.reporter.email} about ${r.reported.email}: ${r.reason}`),
  ];
}
