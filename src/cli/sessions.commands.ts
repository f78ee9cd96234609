/** `sessions revoke`: signs a user out everywhere (SPEC §4 sessions, §5.6 refresh tokens). */
import { endSessionsAndGrantsOfUser } from '../accounts/sessions.ts';
import { logSecurityEvent } from '../ops/security-events.ts';
import type { CliCommand } from './command.ts';
import { findUser } from './users.commands.ts';

export const sessionsRevokeCommand: CliCommand = {
  words: ['sessions', 'revoke'],
  summary: 'end every login session of a user and revoke their apps\' refresh and access tokens',
  details: ['Consents stay: the user signs in again and apps they allowed work again without asking.'],
  options: {
    user: { type: 'string', value: 'ID', help: 'the user\'s id' },
    email: { type: 'string', value: 'E', help: 'the user\'s email address (either this or --user)' },
  },
  async run(context, values) {
    const db = await context.database();
    const user = await findUser(db, values, 'user');
    const now = new Date();
    const { sessionsEnded: sessions, grantsRevoked: grants } = await endSessionsAndGrantsOfUser(db, user.id, now);
    logSecurityEvent(context.events, { event: 'account.member.sessions_ended', userId: user.id, actorId: null, sessionsEnded: sessions, grantsRevoked: grants });
    return {
      json: { userId: user.id, email: user.email, sessionsEnded: sessions, grantsRevoked: grants },
      text: [`${user.email} (user ${user.id}): ${sessions} session(s) ended, ${grants} app grant(s) revoked.`],
    };
  },
};
