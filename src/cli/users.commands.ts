/**
 * `user list | show | add | set-password | disable | enable | delete | reset-second-factor`.
 * Passwords come from standard input or a prompt.
 */
import { createUser, setUserPassword } from '../accounts/accounts.service.ts';
import { deleteMember } from '../accounts/member-deletion.ts';
import { disableMember, enableMember } from '../accounts/member-status.ts';
import { resetSecondFactor } from '../accounts/one-time-codes/one-time-codes.service.ts';
import { ROLE_NAMES, roleName, type RoleName } from '../accounts/roles.ts';
import { accountStatus, findRegionIdsOfUser, findUserById, findUserCredentialsByEmail, findUserWithStatus, listUsers, type UserRow, type UserWithStatus } from '../accounts/users.repository.ts';
import type { DB } from '../db/database.ts';
import { logSecurityEvent } from '../ops/security-events.ts';
import { oneOf, optionalEmail, optionalInteger, optionalString, positiveIntegers, RefusedInput, UsageError, type CliCommand, type OptionSpecs, type OptionValues } from './command.ts';

const PASSWORD_NOTE = 'The password is read from standard input (its first line), or asked for without echo on a terminal.';

/** `--id N` or `--email E`, the way `user add` names a user. */
const WHICH_USER: OptionSpecs = {
  id: { type: 'string', value: 'N', help: 'the user\'s id' },
  email: { type: 'string', value: 'E', help: 'the user\'s email address (either this or --id)' },
};

/**
 * The user named by `--id` (or `idOption`) or `--email`. A deleted member's anonymised row is
 * refused unless `deleted: 'allow'` (`user show`): nothing of it may be changed or sign in again.
 */
export async function findUser(db: DB, values: OptionValues, idOption = 'id', { deleted = 'refuse' }: { deleted?: 'allow' | 'refuse' } = {}): Promise<UserRow> {
  const which = oneOf(values, idOption, 'email');
  const id = optionalInteger(values, idOption);
  const email = optionalEmail(values, 'email');
  const found = email !== undefined ? await findUserCredentialsByEmail(db, email) : await findUserById(db, id!);
  if (!found) throw new RefusedInput(`there is no user with ${which === 'email' ? `email ${email}` : `id ${id}`}`);
  const { password_hash: _hash, ...user } = found as UserRow & { password_hash?: string };
  if (deleted === 'refuse' && accountStatus((await findUserWithStatus(db, user.id))!) === 'deleted') {
    throw new RefusedInput(`user ${user.id} was deleted before`);
  }
  return user;
}

function userJson(user: UserWithStatus) {
  return {
    id: user.id, email: user.email, firstName: user.first_name, lastName: user.last_name, role: roleName(user.role),
    verified: user.verified, sleeping: user.sleeping, homeRegionId: user.home_region_id,
    status: accountStatus(user), disabledAt: user.disabled_at?.toISOString() ?? null,
  };
}

/** `disabled since …` or `deleted` for an account that cannot sign in; nothing for an active one. */
function statusNote(user: ReturnType<typeof userJson>): string | undefined {
  if (user.status === 'deleted') return 'deleted';
  return user.status === 'disabled' ? `disabled since ${user.disabledAt!.slice(0, 16).replace('T', ' ')} UTC` : undefined;
}

export const userListCommand: CliCommand = {
  words: ['user', 'list'],
  summary: 'list the users',
  options: {},
  async run(context) {
    const users = (await listUsers(await context.database())).map(userJson);
    return {
      json: users,
      text: users.length === 0 ? ['No users.'] : users.map((u) => {
        const note = statusNote(u);
        return `${String(u.id).padStart(5)}  ${u.email.padEnd(30)} ${u.role.padEnd(13)} ${u.firstName} ${u.lastName}${note ? `  [${note}]` : ''}`;
      }),
    };
  },
};

export const userShowCommand: CliCommand = {
  words: ['user', 'show'],
  summary: 'show one user with their regions',
  options: WHICH_USER,
  async run(context, values) {
    const db = await context.database();
    const user = (await findUserWithStatus(db, (await findUser(db, values, 'id', { deleted: 'allow' })).id))!;
    const regions = await findRegionIdsOfUser(db, user.id);
    const shown = { ...userJson(user), regionIds: regions.member, ambassadorOf: regions.ambassador };
    const notes = [shown.role, ...(shown.verified ? ['verified'] : []), ...(shown.sleeping ? ['sleeping'] : []), statusNote(shown) ?? []].flat();
    return {
      json: shown,
      text: [`${shown.id}: ${shown.email} — ${shown.firstName} ${shown.lastName} (${notes.join(', ')})`,
        `  member of: ${shown.regionIds.join(', ') || 'no region'}`, `  ambassador of: ${shown.ambassadorOf.join(', ') || 'no region'}`],
    };
  },
};

export const userAddCommand: CliCommand = {
  words: ['user', 'add'],
  summary: 'create a user',
  details: [`${PASSWORD_NOTE} --password P works too, but shows the password in ps and the shell history.`],
  options: {
    email: { type: 'string', required: true, value: 'E', help: 'the login email address' },
    password: { type: 'string', value: 'P', help: 'the password; visible to other users of the machine (ps) and kept in the shell history: prefer standard input' },
    'first-name': { type: 'string', required: true, value: 'F', help: 'first name' },
    'last-name': { type: 'string', required: true, value: 'L', help: 'last name' },
    role: { type: 'string', value: 'ROLE', help: `one of ${ROLE_NAMES.join(', ')} (default foodsharer)` },
    region: { type: 'string', multiple: true, value: 'ID', help: 'member of this region; repeat; the first is the home region' },
    'ambassador-of': { type: 'string', multiple: true, value: 'ID', help: 'ambassador (and member) of this region; repeat' },
  },
  async run(context, values) {
    const role = optionalString(values, 'role') ?? 'foodsharer';
    if (!ROLE_NAMES.includes(role as RoleName)) throw new UsageError(`--role must be one of ${ROLE_NAMES.join(', ')}`);
    const regionIds = positiveIntegers(values, 'region');
    const ambassadorOf = positiveIntegers(values, 'ambassador-of');
    const password = optionalString(values, 'password') ?? await context.readPassword('Password');
    if (values.password !== undefined) context.warn('a password given as --password shows in ps and stays in the shell history; pipe it to standard input instead');
    const input = { email: values.email as string, firstName: values['first-name'] as string, lastName: values['last-name'] as string, role: role as RoleName, regionIds, ambassadorOf };
    const id = await createUser(await context.database(), { ...input, password });
    logSecurityEvent(context.events, { event: 'account.member.created', userId: id, actorId: null, role });
    return { json: { id, ...input }, text: [`User ${id} created: ${input.email} (${role})`] };
  },
};

export const userSetPasswordCommand: CliCommand = {
  words: ['user', 'set-password'],
  summary: 'set a user\'s password, end their login sessions and revoke their apps\' tokens',
  details: [
    PASSWORD_NOTE,
    'Every login session of the user ends as a logout ends one, and every app grant of theirs is revoked with its refresh tokens (as a reset link does): whatever was got with the old password ends. Consents stay.',
  ],
  options: WHICH_USER,
  async run(context, values) {
    const db = await context.database();
    const user = await findUser(db, values);
    const password = await context.readPassword(`New password for ${user.email}`);
    const ended = await setUserPassword(db, user.id, password, new Date());
    if (!ended) throw new RefusedInput(`there is no user with id ${user.id}`);
    logSecurityEvent(context.events, { event: 'account.member.password_set', userId: user.id, actorId: null, sessionsEnded: ended.sessionsEnded, grantsRevoked: ended.grantsRevoked });
    return {
      json: { id: user.id, email: user.email, passwordChanged: true, ...ended },
      text: [`Password of ${user.email} (user ${user.id}) changed; ${ended.sessionsEnded} session(s) ended, ${ended.grantsRevoked} app grant(s) revoked.`],
    };
  },
};

const STATUS_DETAILS = 'Signs the user out everywhere as `sessions revoke` does (their apps get back-channel logout notices) and refuses their logins until `user enable`; no unlock or password-reset mail is sent to them meanwhile.';

export const userDisableCommand: CliCommand = {
  words: ['user', 'disable'],
  summary: 'stop a user from signing in and sign them out everywhere',
  details: [STATUS_DETAILS],
  options: WHICH_USER,
  async run(context, values) {
    const db = await context.database();
    const user = await findUser(db, values);
    const result = await disableMember(db, user.id, new Date());
    if (!result) throw new RefusedInput(`there is no user with id ${user.id}`);
    if (!result.changed) throw new RefusedInput(`${user.email} (user ${user.id}) is already disabled`);
    const { sessionsEnded, grantsRevoked } = result;
    logSecurityEvent(context.events, { event: 'account.member.disabled', userId: user.id, actorId: null, sessionsEnded, grantsRevoked });
    return {
      json: { id: user.id, email: user.email, disabled: true, sessionsEnded, grantsRevoked },
      text: [`${user.email} (user ${user.id}) disabled; ${sessionsEnded} session(s) ended, ${grantsRevoked} app grant(s) revoked.`],
    };
  },
};

export const userEnableCommand: CliCommand = {
  words: ['user', 'enable'],
  summary: 'let a disabled user sign in again',
  details: ['What disabling revoked (sessions, app grants) stays revoked.'],
  options: WHICH_USER,
  async run(context, values) {
    const db = await context.database();
    const user = await findUser(db, values);
    const result = await enableMember(db, user.id);
    if (!result) throw new RefusedInput(`there is no user with id ${user.id}`);
    if (!result.changed) throw new RefusedInput(`${user.email} (user ${user.id}) is not disabled`);
    logSecurityEvent(context.events, { event: 'account.member.enabled', userId: user.id, actorId: null });
    return { json: { id: user.id, email: user.email, disabled: false }, text: [`${user.email} (user ${user.id}) enabled.`] };
  },
};

export const userDeleteCommand: CliCommand = {
  words: ['user', 'delete'],
  summary: 'delete a user: private data deleted, community content anonymised',
  details: [
    '--confirm-email must repeat the user\'s email address exactly; otherwise nothing is deleted.',
    'What goes and what stays is described in docs/security.md, "Deleting a member".',
  ],
  options: {
    ...WHICH_USER,
    'confirm-email': { type: 'string', required: true, value: 'E', help: 'the user\'s email address again, exactly: the confirmation' },
  },
  async run(context, values) {
    const db = await context.database();
    const user = await findUser(db, values);
    if (values['confirm-email'] !== user.email) throw new RefusedInput(`--confirm-email does not match the email of user ${user.id}; nothing was deleted`);
    const deleted = await deleteMember(db, user.id, new Date());
    if (!deleted) throw new RefusedInput(`user ${user.id} was deleted before`);
    const { sessionsEnded, grantsRevoked } = deleted;
    logSecurityEvent(context.events, { event: 'account.member.deleted', userId: user.id, actorId: null, sessionsEnded, grantsRevoked });
    return {
      json: { id: user.id, email: user.email, deleted: true, sessionsEnded, grantsRevoked },
      text: [`${user.email} (user ${user.id}) deleted; ${sessionsEnded} session(s) ended, ${grantsRevoked} app grant(s) revoked.`],
    };
  },
};

export const userResetSecondFactorCommand: CliCommand = {
  words: ['user', 'reset-second-factor'],
  summary: 'delete a user\'s one-time codes, recovery codes and passkeys (they lost them)',
  details: [
    'For a member who lost their authenticator app, their recovery codes and their passkeys: their next login asks for the password only.',
    'Check who is asking first: whoever can have this done can take over the account. The member is told by mail (unless MAIL=off). Sessions stay.',
  ],
  options: WHICH_USER,
  async run(context, values) {
    const db = await context.database();
    const user = await findUser(db, values);
    const reset = await resetSecondFactor(db, () => new Date(), {
      userId: user.id, email: user.email, mailLocale: context.config.mail.mode === 'off' ? undefined : 'de',
    }, context.events);
    if (!reset) throw new RefusedInput(`${user.email} (user ${user.id}) has no second factor (no one-time codes, no passkeys): nothing to reset`);
    return {
      json: { id: user.id, email: user.email, ...reset },
      text: [`Second factor of ${user.email} (user ${user.id}) reset: one-time codes ${reset.oneTimeCodes ? 'deleted' : 'were not on'}, ${reset.passkeysDeleted} passkey(s) deleted.`],
    };
  },
};
