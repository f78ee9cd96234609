/**
 * The one-time-codes section of `/settings/security` (RFC 6238; OWASP
 * Multifactor Authentication Cheat Sheet): turn codes on — a QR code (inline
 * SVG) and the secret as text, confirmed by a first code — then ten recovery
 * codes shown once (and offered as a text file); turn them off or replace the
 * recovery codes, each with a current code. `return_to` (set by the
 * REQUIRE_SECOND_FACTOR gate) is carried through, so that the member
 * continues where they were going.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import { isValidFormToken } from '../../accounts/csrf.ts';
import { deviceCookieOf } from '../../accounts/login-device-cookie.ts';
import { LoginThrottled, minutesToWait, type LoginGuard } from '../../accounts/login.service.ts';
import {
  confirmEnrolment, findSecondFactors, hasSecondFactor, pendingEnrolmentSecret, regenerateRecoveryCodes, startEnrolment, turnOffOneTimeCodes, WrongCode,
  type CodeAttempt, type OneTimeCodeKeys,
} from '../../accounts/one-time-codes/one-time-codes.service.ts';
import { countUnusedRecoveryCodes } from '../../accounts/one-time-codes/one-time-codes.repository.ts';
import { otpauthUri } from '../../accounts/one-time-codes/totp.ts';
import { withOneTimeCode } from '../../accounts/authentication-methods.ts';
import { factorChangeNow } from '../../accounts/recent-sign-in.ts';
import { wouldLeaveRequiredRoleWithoutFactor } from '../../accounts/second-factor-requirement.ts';
import { safeReturnTo } from '../../accounts/return-to.ts';
import { renewRequestSession } from '../../accounts/session-http.ts';
import type { SessionContext } from '../../accounts/sessions.ts';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { DB } from '../../db/database.ts';
import { noteSecondFactor } from '../../ops/metrics.ts';
import { onFirstUse } from '../../on-first-use.ts';
import { localeOf } from '../language/locale.ts';
import { pageSession } from '../page-access.ts';
import { factorChangeRefusal } from './factor-change.ts';

const PAGE = '/settings/security';
const SECTION = `${PAGE}/one-time-codes`;

/** The section's forms that take a code. */
export type OneTimeCodeForm = 'confirm' | 'regenerate' | 'disable';

/** What the section shows. */
export interface OneTimeCodesView {
  enabled: boolean;
  /** An enrolment under way: the QR code (SVG markup we generated) and the secret, grouped for reading. */
  setup?: { qrSvg: string; secret: string };
  recoveryCodesLeft: number;
  /** Shown once, right after they were made. */
  recoveryCodes?: string[];
  /** The section's form error, already in the page's language. */
  error?: string;
  /** The form whose code the error is about: shown beside that field (else at the section's top). */
  errorAt?: OneTimeCodeForm;
  /** Where to continue (a path on this site). */
  returnTo?: string;
  /** Codes were just turned off. */
  turnedOff?: boolean;
}

export interface OneTimeCodesSectionDeps {
  config: Config;
  db: DB;
  clock: Clock;
  loginGuard: LoginGuard;
  keys: OneTimeCodeKeys;
  render(request: FastifyRequest, reply: FastifyReply, session: SessionContext, view: { otp?: Partial<OneTimeCodesView> }, status?: number): Promise<FastifyReply>;
}

const CodeForm = Type.Object({
  code: Type.Optional(Type.String({ maxLength: 100 })),
  csrf_token: Type.Optional(Type.String({ maxLength: 200 })),
  return_to: Type.Optional(Type.String({ maxLength: 8192 })),
});

/** The secret in groups of four, as authenticator apps accept it typed. */
function grouped(secret: string): string {
  return secret.replace(/(.{4})(?=.)/g, '$1 ');
}

/** qrcode (about 0.03 s of CPU to load) with the first enrolment shown, not at start-up. */
const loadQrCode = onFirstUse(() => import('qrcode').then((module) => module.default));

/** The section's state for the page (the page merges what a form left to show over it). */
export async function oneTimeCodesView(deps: Pick<OneTimeCodesSectionDeps, 'config' | 'db' | 'keys'>, session: SessionContext): Promise<{ otp: OneTimeCodesView }> {
  const { db, keys, config } = deps;
  const factors = await findSecondFactors(db, session.user.id);
  const pending = factors.totp ? undefined : await pendingEnrolmentSecret(db, keys, session.user.id);
  const setup = pending === undefined ? undefined : {
    qrSvg: await (await loadQrCode()).toString(otpauthUri(pending, config.publicUrl, session.user.email), { type: 'svg', errorCorrectionLevel: 'M', margin: 2 }),
    secret: grouped(pending),
  };
  return { otp: { enabled: factors.totp, recoveryCodesLeft: factors.totp ? await countUnusedRecoveryCodes(db, session.user.id) : 0, ...(setup ? { setup } : {}) } };
}

type Form = Static<typeof CodeForm>;

export function oneTimeCodesSection(app: FastifyInstance, deps: OneTimeCodesSectionDeps): void {
  const { config, db, clock, loginGuard, keys, render } = deps;
  const returnToOf = (value: unknown) => safeReturnTo(value, config.publicUrl);
  const backToPage = (returnTo: string | undefined) => `${PAGE}${returnTo ? `?${new URLSearchParams({ return_to: returnTo }).toString()}` : ''}#one-time-codes`;
  const holderOf = (session: SessionContext, request: FastifyRequest) => ({
    userId: session.user.id, email: session.user.email, mailLocale: config.mail.mode === 'off' ? undefined : localeOf(request),
  });

  /**
   * A POST of the section: the session and a valid form token, or the answer already sent. `done`: whether
   * what the form asks for is already done, for a form sent again once it has been (the browser's Back after
   * the codes were turned on: the session's id, and so the form's token, was renewed by the first) — then the
   * page as it is, not a "form expired" that a reload cannot mend.
   */
  const post = (
    path: string, act: (request: FastifyRequest, reply: FastifyReply, session: SessionContext, form: Form, returnTo: string | undefined) => Promise<FastifyReply>,
    done?: (session: SessionContext) => Promise<boolean>,
  ) =>
    app.withTypeProvider<TypeBoxTypeProvider>().post(path, { schema: { body: CodeForm } }, async (request, reply) => {
      const returnTo = returnToOf(request.body.return_to);
      const session = await pageSession(request, reply, { orgaOnly: false, returnTo: PAGE });
      if (!session) return reply;
      if (!(await isValidFormToken(request, request.body.csrf_token))) {
        if (done && await done(session)) return reply.redirect(backToPage(returnTo), 303);
        return render(request, reply, session, { otp: { error: reply.translator()('security.csrf'), ...(returnTo ? { returnTo } : {}) } }, 403);
      }
      return act(request, reply, session, request.body, returnTo);
    });

  /** Turning codes on: only when factors may be changed (accounts/recent-sign-in.ts), else the page says to sign in again. */
  const enrolment = (
    path: string, act: (request: FastifyRequest, reply: FastifyReply, session: SessionContext, form: Form, returnTo: string | undefined) => Promise<FastifyReply>,
    done?: (session: SessionContext) => Promise<boolean>,
  ) =>
    post(path, async (request, reply, session, form, returnTo) => {
      const change = await factorChangeNow(db, session, clock());
      if (change === 'allowed') return act(request, reply, session, form, returnTo);
      return render(request, reply, session, { otp: { error: factorChangeRefusal(reply.translator(), change), ...(returnTo ? { returnTo } : {}) } }, 403);
    }, done);

  enrolment(`${SECTION}/start`, async (_request, reply, session, _form, returnTo) => {
    await startEnrolment(db, keys, clock, session.user.id);
    return reply.redirect(backToPage(returnTo), 303);
  });

  enrolment(`${SECTION}/confirm`, async (request, reply, session, form, returnTo) => {
    if (!form.code?.trim()) return render(request, reply, session, { otp: { error: reply.translator()('security.otp.missing'), errorAt: 'confirm', ...(returnTo ? { returnTo } : {}) } }, 400);
    const firstFactor = !hasSecondFactor(await findSecondFactors(db, session.user.id));
    const codes = await confirmEnrolment(db, keys, clock, holderOf(session, request), form.code ?? '', request.events);
    const keep = returnTo ? { returnTo } : {};
    if (!codes) return render(request, reply, session, { otp: { error: reply.translator()('security.otp.wrong'), errorAt: 'confirm', ...keep } }, 400);
    // Started anew in another tab: the page shows the new secret, to be confirmed with a code of its own.
    if (codes === 'restarted') return render(request, reply, session, { otp: { error: reply.translator()('security.otp.restarted'), errorAt: 'confirm', ...keep } }, 409);
    noteSecondFactor(request, 'enrolled');
    // A new id for the session. A member's first factor: the session, signed in with the password within the
    // last 15 minutes, has just proved a code of it too, and counts as two factors. A member who had a passkey
    // already proves nothing with a code of a factor this session made itself: its methods stay as they were.
    await renewRequestSession(request, reply, { config, db, clock }, firstFactor ? withOneTimeCode(session.amr) : undefined);
    return render(request, reply, (await request.getSession())!, { otp: { recoveryCodes: codes, ...keep } });
  }, async (session) => (await findSecondFactors(db, session.user.id)).totp);

  /** Turning off and new recovery codes: each needs a current code, counted by the login throttle. */
  const withCode = (path: string, errorAt: OneTimeCodeForm, act: (request: FastifyRequest, reply: FastifyReply, session: SessionContext, attempt: CodeAttempt) => Promise<FastifyReply>) =>
    post(path, async (request, reply, session, form) => {
      const t = reply.translator();
      // No code is no guess: said beside the field, not counted.
      if (!form.code?.trim()) return render(request, reply, session, { otp: { error: t('security.otp.missing'), errorAt } }, 400);
      const attempt = {
        ...holderOf(session, request), code: form.code ?? '', ip: request.ip, deviceCookie: deviceCookieOf(request, config), stepUp: false, log: request.events,
      };
      try {
        return await act(request, reply, session, attempt);
      } catch (error) {
        if (error instanceof LoginThrottled) {
          void reply.header('retry-after', String(error.retryAfterSeconds));
          return render(request, reply, session, { otp: { error: t('security.password.throttled', { minutes: minutesToWait(error.retryAfterSeconds) }), errorAt } }, 429);
        }
        if (!(error instanceof WrongCode)) throw error;
        noteSecondFactor(request, 'failure');
        return render(request, reply, session, { otp: { error: t('security.otp.wrong'), errorAt } }, 400);
      }
    });

  withCode(`${SECTION}/disable`, 'disable', async (request, reply, session, attempt) => {
    // Removing a factor, as adding one, needs a recent sign-in with two factors (accounts/recent-sign-in.ts);
    // a member whose role needs a second factor keeps one. Both are said before a code is spent on them.
    const change = await factorChangeNow(db, session, clock());
    if (change !== 'allowed') return render(request, reply, session, { otp: { error: factorChangeRefusal(reply.translator(), change), errorAt: 'disable' } }, 403);
    const refuse = () => render(request, reply, session, { otp: { error: reply.translator()('security.otp.requiredByRole'), errorAt: 'disable' } }, 409);
    if (await wouldLeaveRequiredRoleWithoutFactor(db, config.requireSecondFactor, session.user.id, 'one-time-codes')) return refuse();
    if (await turnOffOneTimeCodes(db, keys, clock, loginGuard, attempt, config.requireSecondFactor) === 'factor-required') return refuse();
    noteSecondFactor(request, 'removed');
    // No fragment: the notice's autofocus shows it (a fragment would take precedence over autofocus).
    return reply.redirect(`${PAGE}?otp=off`, 303);
  });

  withCode(`${SECTION}/recovery-codes`, 'regenerate', async (request, reply, session, attempt) => {
    const codes = await regenerateRecoveryCodes(db, keys, clock, loginGuard, attempt);
    // Turned off meanwhile, in another tab: the page says so.
    if (!codes) return reply.redirect(`${PAGE}?otp=off`, 303);
    return render(request, reply, session, { otp: { recoveryCodes: codes } });
  });
}
