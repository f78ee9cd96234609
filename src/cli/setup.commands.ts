/** `migrate` and `demo` (SPEC §3, §9). */
import { describeCommunityDemo } from '../demo/demo-community.ts';
import { DemoRefusedInProduction, loadDemoDataIfEmpty, DatabaseNotEmptyError, type DemoSummary } from '../demo/demo-data.ts';
import { describeOAuthDemo } from '../demo/demo-oauth.ts';
import { removeDemoAccounts, type DemoRemoval } from '../demo/demo-removal.ts';
import { findDemoSummary } from '../demo/demo-summary.ts';
import type { CliCommand } from './command.ts';

export const migrateCommand: CliCommand = {
  words: ['migrate'],
  summary: 'apply pending database migrations (harmless when up to date)',
  options: {},
  // The context migrates when it opens the database; report what that did.
  async run(context) {
    await context.database();
    const applied = context.appliedMigrations;
    return {
      json: { applied },
      text: [applied.length === 0 ? 'Database schema is up to date.' : `Applied: ${applied.join(', ')}`],
    };
  },
};

export const demoCommand: CliCommand = {
  words: ['demo'],
  summary: 'load the demo dataset into an empty database, or show the loaded one\'s ids (never in production)',
  options: {},
  async run(context) {
    // SPEC §3: never in production. Checked before the keys or the database are touched.
    if (context.config.isProduction) throw new DemoRefusedInProduction();
    const db = await context.database();
    const existing = await findDemoSummary<DemoSummary>(db);
    if (existing) return { json: existing, text: describeDemo('Demo dataset already loaded; its ids as loaded:', existing) };
    const summary = await loadDemoDataIfEmpty(db, await context.keys());
    if (!summary) throw new DatabaseNotEmptyError();
    return { json: summary, text: describeDemo('Demo dataset loaded.', summary) };
  },
};

export const demoRemoveCommand: CliCommand = {
  words: ['demo', 'remove'],
  summary: 'delete the demo accounts and OAuth clients, so that no published demo credential works (also in production)',
  details: [
    'Deletes every demo account (the @example.org addresses of the demo dataset) with its sessions, app grants,',
    'tokens and consents and what it wrote (wall posts, baskets, polls), and the OAuth clients demo-app and demo-spa',
    'with their consents, codes and grants. The demo regions, stores, quizzes, contents and feature toggles stay.',
    'A production server refuses to start while a demo credential still works (ALLOW_DEMO_IN_PRODUCTION).',
  ],
  options: {},
  async run(context) {
    const removal = await removeDemoAccounts(await context.database(), context.events);
    return {
      json: { removedUsers: removal.users, removedClients: removal.clientIds, removedPolls: removal.polls },
      text: describeRemoval(removal),
    };
  },
};

function describeRemoval(removal: DemoRemoval): string[] {
  if (removal.users.length === 0 && removal.clientIds.length === 0) return ['No demo accounts or OAuth clients found; nothing removed.'];
  return [
    'Removed the demo accounts and OAuth clients; their published credentials no longer work.',
    removal.users.length === 0 ? 'Accounts: none'
      : `Accounts, with their sessions, app grants, tokens and consents and what they wrote (${removal.polls} poll(s) among it):`,
    ...removal.users.map((u) => `  ${String(u.id).padStart(3)}  ${u.email}`),
    `OAuth clients, with their consents, codes and grants: ${removal.clientIds.length === 0 ? 'none' : removal.clientIds.join(', ')}`,
    'Kept: the demo regions, stores, quizzes, contents and feature toggles (they hold no credential).',
  ];
}

function describeDemo(heading: string, summary: DemoSummary): string[] {
  return [
    heading,
    'Regions:',
    ...summary.regions.map((r) => `  ${String(r.id).padStart(3)}  ${r.name} (${r.type})`),
    'Users:',
    ...summary.users.map((u) => `  ${String(u.id).padStart(3)}  ${u.email.padEnd(26)} ${u.password}  ${u.role}`),
    ...describeCommunityDemo(summary.community),
    ...describeOAuthDemo(summary.oauthClients).map((line) => `  ${line}`),
    'Everything, with all ids: demo --json',
  ];
}
