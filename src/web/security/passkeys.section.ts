/**
 * The passkeys section of /settings/security (docs/security.md, "Passkeys"):
 * the member's passkeys with when each was added and last used; adding one
 * (static/passkey-settings.js runs the ceremony against the two JSON
 * endpoints below), renaming and removing one (forms, CSRF-checked). Removing
 * the last passkey of an account without a usable password is refused
 * (accounts/passkeys/passkey-removal.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { isValidFormToken } from '../../accounts/csrf.ts';
import { addPasskey, PasskeyNotAdded, passkeyRegistrationOptions } from '../../accounts/passkeys/passkey-registration.ts';
import { isUsablePasswordHash, mayRemovePasskey } from '../../accounts/passkeys/passkey-removal.ts';
import { deletePasskey, listPasskeys, renamePasskey, storedPasskeyName } from '../../accounts/passkeys/passkeys.repository.ts';
import { relyingPartyOf } from '../../accounts/passkeys/relying-party.ts';
import { ONE_TIME_CODE_MAIL_KINDS } from '../../accounts/one-time-codes/one-time-codes.mail.ts';
import { queueSecondFactorMail } from '../../accounts/one-time-codes/one-time-codes.service.ts';
import { factorChangeNow, signInAgainHref } from '../../accounts/recent-sign-in.ts';
import { wouldLeaveRequiredRoleWithoutFactor } from '../../accounts/second-factor-requirement.ts';
import { describeDevice } from '../../accounts/session-device.ts';
import { renewRequestSession } from '../../accounts/session-http.ts';
import { endSessionsOfUser, type SessionContext } from '../../accounts/sessions.ts';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { DB } from '../../db/database.ts';
import { inTransaction } from '../../db/transaction.ts';
import { logSecurityEvent } from '../../ops/security-events.ts';
import { hasRefusedNameCharacters } from '../../text/control-characters.ts';
import type { Translate } from '../i18n.ts';
import { factorChangeRefusal } from './factor-change.ts';
import { localeOf } from '../language/locale.ts';
import { pageSession } from '../page-access.ts';
import { RegistrationResponse } from '../passkey-schemas.ts';

const PAGE = '/settings/security';
const BASE = `${PAGE}/passkeys`;

export const PASSKEY_NOTICES = ['added', 'renamed', 'removed'] as const;

export interface PasskeysSectionDeps {
  config: Config;
  db: DB;
  clock: Clock;
}

const Csrf = { csrf_token: Type.Optional(Type.String({ maxLength: 200 })) };
const Id = Type.Optional(Type.String({ maxLength: 12, pattern: '^[0-9]{1,9}$' }));
const Name = Type.Optional(Type.String({ maxLength: 1000 }));

/** The name the member gave, or their browser and system when they gave none (or one no page can show). */
function passkeyName(name: string | undefined, fallback: string): string {
  const trimmed = (name ?? '').trim();
  // Half a surrogate pair (JSON can escape one) is no character: PostgreSQL would store U+FFFD.
  return trimmed === '' || hasRefusedNameCharacters(trimmed) || /\p{Cs}/u.test(trimmed) ? fallback : storedPasskeyName(trimmed);
}

/** "Firefox 133 on Windows 10": the default name of a passkey added in this browser. */
function defaultName(request: FastifyRequest, t: Translate): string {
  const { browser, system } = describeDevice(request.headers['user-agent'] ?? null);
  if (browser === undefined) return t('passkeys.defaultName');
  return system === undefined ? browser : t('security.on', { browser, system });
}

function json(reply: FastifyReply, status: number, body: object): FastifyReply {
  return reply.code(status).header('cache-control', 'no-store').send(body);
}

/** Registers the section's endpoints; its `view` is what the page shows of it. */
export function passkeysSection(app: FastifyInstance, { config, db, clock }: PasskeysSectionDeps) {
  const rp = relyingPartyOf(config.publicUrl);
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  const mailEnabled = config.mail.mode !== 'off';

  /**
   * The session of a JSON request with a valid CSRF token that may add a passkey now (signed in recently
   * enough, and with two factors once the member has a second one: accounts/recent-sign-in.ts), or the
   * refusal already answered.
   */
  const jsonSession = async (request: FastifyRequest, reply: FastifyReply, token: string | undefined) => {
    const session = await request.getSession();
    const t = reply.translator();
    if (!session) return void json(reply, 401, { error: t('passkeys.signedOut') });
    if (!(await isValidFormToken(request, token))) return void json(reply, 403, { error: t('security.csrf') });
    const change = await factorChangeNow(db, session, clock());
    if (change !== 'allowed') return void json(reply, 403, { error: factorChangeRefusal(t, change), location: signInAgainHref(PAGE) });
    return session;
  };

  typed.post(`${BASE}/options`, { schema: { body: Type.Object(Csrf) } }, async (request, reply) => {
    const session = await jsonSession(request, reply, request.body.csrf_token);
    if (!session) return reply;
    const t = reply.translator();
    const { user } = session;
    const options = await passkeyRegistrationOptions(db, clock, rp, {
      userId: user.id, email: user.email, displayName: `${user.first_name} ${user.last_name}`.trim() || user.email, sid: session.sid,
    });
    return json(reply, 200, { options, messages: { cancelled: t('passkeys.cancelled'), exists: t('passkeys.exists') } });
  });

  typed.post(BASE, { schema: { body: Type.Object({ ...Csrf, name: Name, response: RegistrationResponse }) } }, async (request, reply) => {
    const session = await jsonSession(request, reply, request.body.csrf_token);
    if (!session) return reply;
    const t = reply.translator();
    try {
      await addPasskey(db, clock, rp, {
        userId: session.user.id, email: session.user.email, displayName: session.user.first_name, sid: session.sid,
        response: request.body.response, name: passkeyName(request.body.name, defaultName(request, t)),
        mailLocale: mailEnabled ? localeOf(request) : undefined, log: request.events, ip: request.ip,
      });
      // A new way in: the session's id is renewed, as after a password change.
      await renewRequestSession(request, reply, { config, db, clock });
      return json(reply, 201, { location: `${PAGE}?passkey=added` });
    } catch (error) {
      if (!(error instanceof PasskeyNotAdded)) throw error;
      request.log.info({ reason: error.reason, detail: error.message }, 'passkey not added');
      if (error.reason === 'session-ended') return json(reply, 401, { error: t('passkeys.sessionEnded') });
      return json(reply, error.reason === 'already-registered' ? 409 : 400, { error: t(error.reason === 'already-registered' ? 'passkeys.exists' : 'passkeys.failed') });
    }
  });

  /** A form of the section: the session and the passkey id, or the answer already given; `recent`: only when factors may be changed. */
  const formRoute = (path: string, handle: (session: SessionContext, id: number, name: string | undefined, request: FastifyRequest, t: Translate) => Promise<'done' | 'not-found' | 'refused' | 'factor-required'>, notice: typeof PASSKEY_NOTICES[number], recent = false) =>
    typed.post(path, { schema: { body: Type.Object({ ...Csrf, id: Id, name: Name }) } }, async (request, reply) => {
      const session = await pageSession(request, reply, { orgaOnly: false, returnTo: PAGE });
      if (!session) return reply;
      const t = reply.translator();
      const back = { href: PAGE, text: t('security.title') };
      if (!(await isValidFormToken(request, request.body.csrf_token))) return reply.render('error', { message: t('security.csrf'), link: back }, 403);
      const change = recent ? await factorChangeNow(db, session, clock()) : 'allowed';
      if (change !== 'allowed') {
        return reply.render('error', { message: factorChangeRefusal(t, change), link: { href: signInAgainHref(PAGE), text: t('security.signInAgain.link') } }, 403);
      }
      const outcome = request.body.id === undefined ? 'not-found' : await handle(session, Number(request.body.id), request.body.name, request, t);
      if (outcome === 'not-found') return reply.render('error', { message: t('passkeys.notFound'), link: back }, 404);
      if (outcome === 'refused') return reply.render('error', { message: t('passkeys.lastOne'), link: back }, 409);
      if (outcome === 'factor-required') return reply.render('error', { message: t('passkeys.requiredByRole'), link: back }, 409);
      return reply.redirect(`${PAGE}?passkey=${notice}`, 303);
    });

  formRoute(`${BASE}/rename`, async (session, id, name, request, t) => {
    const renamed = await renamePasskey(db, session.user.id, id, passkeyName(name, defaultName(request, t)));
    return renamed ? 'done' : 'not-found';
  }, 'renamed');

  formRoute(`${BASE}/remove`, async (session, id, _name, request) => {
    const now = clock();
    const outcome = await inTransaction(db, async (trx) => {
      // The member's row locked: two removals at once cannot both see another passkey left. `for no key
      // update`, as every change of a member takes it: an app's sign-in under another session of the member
      // holds that session and then inserts rows naming the member (a key-share lock), which `for update`
      // would wait for while this removal waits for that session: a deadlock (docs/security.md, "Lock order").
      const user = await trx.selectFrom('users').select('password_hash').where('id', '=', session.user.id).forNoKeyUpdate().executeTakeFirstOrThrow();
      const passkeys = await listPasskeys(trx, session.user.id);
      if (!passkeys.some((p) => p.id === id)) return 'not-found' as const;
      if (!mayRemovePasskey({ passkeys: passkeys.length, hasUsablePassword: isUsablePasswordHash(user.password_hash) })) return 'refused' as const;
      if (await wouldLeaveRequiredRoleWithoutFactor(trx, config.requireSecondFactor, session.user.id, 'a-passkey')) return 'factor-required' as const;
      await deletePasskey(trx, session.user.id, id);
      // OWASP Multifactor Authentication Cheat Sheet: the member hears of every change to their factors.
      const holder = { userId: session.user.id, email: session.user.email, mailLocale: mailEnabled ? localeOf(request) : undefined, ip: request.ip };
      await queueSecondFactorMail(trx, holder, ONE_TIME_CODE_MAIL_KINDS.passkeyRemoved, now, request.events);
      // A lost device's passkey is removed to shut it out: the sessions it may have opened end with it (OWASP
      // Session Management: end sessions when a credential is revoked), as every other one does at a password change.
      return endSessionsOfUser(trx, session.user.id, now, { except: session.sid });
    });
    if (typeof outcome === 'string') return outcome;
    logSecurityEvent(request.events, { event: 'account.passkey.removed', userId: session.user.id, passkeyId: id, ...outcome });
    return 'done';
  }, 'removed', true);

  return {
    /** What the page shows of the section. */
    async view(request: FastifyRequest, session: SessionContext, t: Translate) {
      const notice = (request.query as { passkey?: string } | undefined)?.passkey;
      return {
        passkeys: await listPasskeys(db, session.user.id),
        passkeyDefaultName: defaultName(request, t),
        passkeyNotice: PASSKEY_NOTICES.find((n) => n === notice),
      };
    },
  };
}

