/** `migrate`, `region add`, `user add`, `demo` (SPEC §3). */
import { createRegion, createUser } from '../accounts/accounts.service.ts';
import { REGION_TYPES, type RegionType } from '../accounts/accounts.tables.ts';
import { ROLE_NAMES, type RoleName } from '../accounts/roles.ts';
import { describeCommunityDemo } from '../demo/demo-community.ts';
import { DemoRefusedInProduction, loadDemoData } from '../demo/demo-data.ts';
import { describeOAuthDemo } from '../demo/demo-oauth.ts';
import { positiveIntegers, requiredString, optionalString, UsageError, type CliCommand } from './command.ts';

export const migrateCommand: CliCommand = {
  words: ['migrate'],
  usage: 'migrate',
  options: {},
  // The context migrates when it opens the database; report what that did.
  async run(context) {
    await context.database();
    const applied = context.appliedMigrations;
    return {
      json: { applied },
      text: applied.length === 0 ? 'Database schema is up to date.' : `Applied: ${applied.join(', ')}`,
    };
  },
};

export const regionAddCommand: CliCommand = {
  words: ['region', 'add'],
  usage: `region add --name N [--parent ID] [--type ${REGION_TYPES.join('|')}]`,
  options: { name: { type: 'string' }, parent: { type: 'string' }, type: { type: 'string' } },
  async run(context, values) {
    const name = requiredString(values, 'name');
    const [parentId] = positiveIntegers(values, 'parent');
    const type = optionalString(values, 'type') ?? 'region';
    if (!REGION_TYPES.includes(type as RegionType)) throw new UsageError(`--type must be one of ${REGION_TYPES.join(', ')}`);
    const id = await createRegion(await context.database(), { name, parentId: parentId ?? null, type: type as RegionType });
    return { json: { id, name, type, parentId: parentId ?? null }, text: `Region ${id} created: ${name} (${type})` };
  },
};

export const userAddCommand: CliCommand = {
  words: ['user', 'add'],
  usage: `user add --email E --password P --first-name F --last-name L [--role ${ROLE_NAMES.join('|')}] [--region ID]... [--ambassador-of ID]...`,
  options: {
    email: { type: 'string' },
    password: { type: 'string' },
    'first-name': { type: 'string' },
    'last-name': { type: 'string' },
    role: { type: 'string' },
    region: { type: 'string', multiple: true },
    'ambassador-of': { type: 'string', multiple: true },
  },
  async run(context, values) {
    const role = optionalString(values, 'role') ?? 'foodsharer';
    if (!ROLE_NAMES.includes(role as RoleName)) throw new UsageError(`--role must be one of ${ROLE_NAMES.join(', ')}`);
    const input = {
      email: requiredString(values, 'email'),
      password: requiredString(values, 'password'),
      firstName: requiredString(values, 'first-name'),
      lastName: requiredString(values, 'last-name'),
      role: role as RoleName,
      regionIds: positiveIntegers(values, 'region'),
      ambassadorOf: positiveIntegers(values, 'ambassador-of'),
    };
    const id = await createUser(await context.database(), input);
    const { password: _password, ...shown } = input;
    return { json: { id, ...shown }, text: `User ${id} created: ${input.email} (${role})` };
  },
};

export const demoCommand: CliCommand = {
  words: ['demo'],
  usage: 'demo',
  options: {},
  async run(context) {
    // SPEC §3: never in production. Checked before the keys or the database are touched.
    if (context.config.isProduction) throw new DemoRefusedInProduction();
    const summary = await loadDemoData(await context.database(), await context.keys());
    const lines = [
      'Demo dataset loaded.',
      'Regions:',
      ...summary.regions.map((r) => `  ${String(r.id).padStart(3)}  ${r.name} (${r.type})`),
      'Users:',
      ...summary.users.map((u) => `  ${String(u.id).padStart(3)}  ${u.email.padEnd(26)} ${u.password}  ${u.role}`),
      ...describeCommunityDemo(summary.community),
      ...describeOAuthDemo(summary.oauthClients).map((line) => `  ${line}`),
      'Everything, with all ids: demo --json',
    ];
    return { json: summary, text: lines.join('\n') };
  },
};
