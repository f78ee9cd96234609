/**
 * `POST /login/passkey/options` and `POST /login/passkey`: signing in with a
 * passkey (accounts/passkeys/passkey-login.ts), for the login page's button
 * and autofill and for any page with a `<button data-passkey-login>` inside a
 * form with `csrf_token` and `return_to` (static/passkey-login.js). JSON in
 * and out; the same CSRF token as the password form, to which the challenge
 * is bound. Success answers where to go (`return_to`, as the password form
 * redirects); a refusal answers one message for every reason, except that
 * a disabled member's valid passkey is answered as their right password is
 * (403, the login page's "This account is disabled" message).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { isValidFormToken } from '../../accounts/csrf.ts';
import { AccountDisabled, LoginThrottled, type LoginGuard } from '../../accounts/login.service.ts';
import { passkeyAuthenticationOptions, PasskeyRejected } from '../../accounts/passkeys/passkey-authentication.ts';
import { logInWithPasskey } from '../../accounts/passkeys/passkey-login.ts';
import type { RelyingParty } from '../../accounts/passkeys/relying-party.ts';
import { safeReturnTo } from '../../accounts/return-to.ts';
import { sessionIdOf, setSessionCookies } from '../../accounts/session-http.ts';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { DB } from '../../db/database.ts';
import { toLocation } from '../../http/location.ts';
import { throttledMessage } from './throttled.ts';
import type { Translate } from '../i18n.ts';
import { AuthenticationResponse } from '../passkey-schemas.ts';

export interface PasskeyLoginDeps {
  config: Config;
  db: DB;
  clock: Clock;
  loginGuard: LoginGuard;
  rp: RelyingParty;
}

const Common = {
  csrf_token: Type.Optional(Type.String({ maxLength: 200 })),
  return_to: Type.Optional(Type.String({ maxLength: 8192 })),
};
const OptionsBody = Type.Object(Common);
const SignInBody = Type.Object({ ...Common, remember: Type.Optional(Type.Boolean()), response: AuthenticationResponse });

/** What the script says when the ceremony ends in the browser (cancelled, timed out) or fails. */
function scriptMessages(t: Translate) {
  return { cancelled: t('login.passkey.cancelled'), failed: t('login.passkey.failed') };
}

function refuse(reply: FastifyReply, status: number, error: string): FastifyReply {
  return reply.code(status).header('cache-control', 'no-store').send({ error });
}

export function passkeyLoginRoutes(app: FastifyInstance, { config, db, clock, loginGuard, rp }: PasskeyLoginDeps): void {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();

  typed.post('/login/passkey/options', { schema: { body: OptionsBody } }, async (request, reply) => {
    const t = reply.translator();
    const token = request.body.csrf_token;
    if (token === undefined || !(await isValidFormToken(request, token))) return refuse(reply, 403, t('login.csrf'));
    const options = await passkeyAuthenticationOptions(db, clock, rp, token);
    return reply.header('cache-control', 'no-store').send({ options, messages: scriptMessages(t) });
  });

  typed.post('/login/passkey', { schema: { body: SignInBody } }, async (request, reply) => {
    const t = reply.translator();
    const { csrf_token: token, response, remember } = request.body;
    if (token === undefined || !(await isValidFormToken(request, token))) return refuse(reply, 403, t('login.csrf'));
    const returnTo = safeReturnTo(request.body.return_to, config.publicUrl) ?? '/';
    try {
      const { session } = await logInWithPasskey(db, clock, loginGuard, rp, {
        response, boundTo: token, log: request.events, ip: request.ip, rememberMe: remember === true,
        userAgent: request.headers['user-agent'], previousSessionId: sessionIdOf(request),
      });
      setSessionCookies(reply, config, clock, session);
      return reply.header('cache-control', 'no-store').send({ location: toLocation(returnTo) });
    } catch (error) {
      if (error instanceof LoginThrottled) {
        return refuse(reply, 429, throttledMessage(reply, error));
      }
      if (error instanceof PasskeyRejected) return refuse(reply, 401, t('login.passkey.failed'));
      if (error instanceof AccountDisabled) return refuse(reply, 403, t('login.disabled'));
      throw error;
    }
  });
}
