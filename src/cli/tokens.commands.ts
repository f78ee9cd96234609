/**
 * `token introspect | revoke`: the operator's view of one access or refresh
 * token, read from standard input (a token on the command line would show in
 * `ps` and the shell history). The operator holds the database, so no client
 * authenticates: introspection answers what `/oauth/introspect` would answer
 * the token's own client (RFC 7662 §2.2), with the member it names;
 * revocation ends the whole grant as `/oauth/revoke` does (RFC 7009 §2.1).
 */
import { findUserById } from '../accounts/users.repository.ts';
import type { DB } from '../db/database.ts';
import { revokeGrant } from '../oauth/grants/grants.repository.ts';
import { findGrantState } from '../oauth/grants/live-grant.repository.ts';
import { loadSigningKeys } from '../oauth/keys/signing-keys.ts';
import { introspectTokenAsOperator, type IntrospectionContext } from '../oauth/tokens/introspection.ts';
import { findGrantOfToken } from '../oauth/tokens/token-grant.ts';
import { logSecurityEvent } from '../ops/security-events.ts';
import { RefusedInput, type CliCommand, type CliContext } from './command.ts';

const FROM_STDIN = ['The token is read from standard input (its first line), or pasted at a prompt without echo on a terminal:',
  '  printf \'%s\\n\' "$TOKEN" | foodsharing token …'];

export const tokenIntrospectCommand: CliCommand = {
  words: ['token', 'introspect'],
  summary: 'whether an access or refresh token is active, its client, member, scope and lifetime',
  details: [...FROM_STDIN, 'Inactive (expired, revoked, rotated, malformed or not ours) is an answer, not an error: exit code 0.'],
  options: {},
  async run(context) {
    const token = await context.readSecret('token', 'TOKEN');
    const ctx = await operatorContext(context);
    const answer = await introspectTokenAsOperator(ctx, token, new Date());
    if (!answer.active) {
      return { json: answer, text: ['Not active: expired, revoked, rotated (a refresh token), malformed, or not issued by this server.'] };
    }
    const user = await describeUser(ctx.db, Number(answer.sub));
    const kind = answer.token_type === 'Bearer' ? 'access token' : 'refresh token';
    return {
      json: { ...answer, user },
      text: [
        `Active ${kind} of client ${answer.client_id} for user ${user.label}`,
        `  scope: ${answer.scope}`,
        `  issued: ${isoSeconds(answer.iat)}, expires: ${isoSeconds(answer.exp)}`,
        `  jti: ${answer.jti}`,
      ],
    };
  },
};

export const tokenRevokeCommand: CliCommand = {
  words: ['token', 'revoke'],
  summary: 'revoke an access or refresh token with its whole grant (every refresh and access token of it)',
  details: [...FROM_STDIN, 'The member stays signed in to this server; the app must ask again for tokens.'],
  options: {},
  async run(context) {
    const token = await context.readSecret('token', 'TOKEN');
    const ctx = await operatorContext(context);
    const now = new Date();
    const found = await findGrantOfToken(ctx, token, now);
    const grant = found && await findGrantState(ctx.db, found.grantId);
    if (!grant) throw new RefusedInput('not a token of this server, or it has expired: there is nothing to revoke');
    const revoked = await revokeGrant(ctx.db, grant.id, now);
    if (revoked) logSecurityEvent(context.events, { event: 'oauth.grant.revoked', grantId: grant.id, clientId: grant.client_id, userId: grant.user_id, actorId: null });
    const user = await describeUser(ctx.db, grant.user_id);
    const state = revoked ? 'Revoked' : 'Already revoked:';
    return {
      json: { grantId: grant.id, clientId: grant.client_id, user, revoked, alreadyRevoked: !revoked },
      text: [`${state} grant ${grant.id} of client ${grant.client_id} for user ${user.label}: its refresh and access tokens no longer work.`],
    };
  },
};

/** Verification keys straight from the table: a command lives too briefly for the server's key store and its reloads. */
async function operatorContext(context: CliContext): Promise<IntrospectionContext & { db: DB }> {
  const db = await context.database();
  const material = await context.keys();
  const byKid = new Map((await loadSigningKeys(db, material, new Date())).map((k) => [k.kid, k.publicKey]));
  return {
    db, material, issuer: context.config.publicUrl,
    keys: { verificationKey: async (kid) => (kid === undefined ? undefined : byKid.get(kid)) },
  };
}

async function describeUser(db: DB, id: number): Promise<{ id: number; email: string | null; label: string }> {
  const user = await findUserById(db, id);
  return { id, email: user?.email ?? null, label: user ? `${id} (${user.email})` : `${id} (deleted)` };
}

function isoSeconds(seconds: number): string {
  return new Date(seconds * 1000).toISOString();
}
