/**
 * buildApp(config, deps): the whole HTTP application, every module registered
 * explicitly. No listening, no process handling: that is main.ts.
 */
import { randomUUID } from 'node:crypto';
import cookie from '@fastify/cookie';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance } from 'fastify';
import { installSessions, sessionCookie } from './accounts/session-http.ts';
import { apiRoutes } from './api/areas.ts';
import { installOpenApi } from './api/openapi/openapi.plugin.ts';
import { API_PRE_ROUTING_ERRORS } from './api/plugin/error-handler.ts';
import { ROUTER_MAX_PARAM_LENGTH } from './api/row-id.ts';
import type { ImageWorkQueue } from './api/uploads/image-work-queue.ts';
import { systemClock, type Clock } from './clock.ts';
import type { Config } from './config.ts';
import type { DatabaseHandle } from './db/database.ts';
import { clientErrorHandler } from './http/client-errors.ts';
import { frameworkErrorHandler } from './http/framework-errors.ts';
import { ServerClosing } from './http/failures.ts';
import { serverLimits } from './http/server-timeouts.ts';
import { securityHeaders } from './http/security-headers.ts';
import { compiledOnFirstUse, compileValidator } from './http/validation.ts';
import { serializersOnFirstUse } from './http/serialization.ts';
import { installFormParser } from './http/form-body.ts';
import { UnsupportedContentCoding, unsupportedContentCoding } from './http/content-coding.ts';
import { installCookieChallenge } from './http/cookie-challenge.ts';
import { UNLOCK_MAIL_KIND } from './accounts/login-unlock.ts';
import { unlockMailComposer } from './accounts/login-unlock.mail.ts';
import { RESET_MAIL_KIND } from './accounts/password-reset.ts';
import { resetMailComposer } from './accounts/password-reset.mail.ts';
import { PASSWORD_CHANGED_MAIL_KIND, passwordChangedMailComposer } from './accounts/password-changed.mail.ts';
import { PASSKEY_ADDED_MAIL_KIND, passkeyAddedMailComposer } from './accounts/passkeys/passkey-added.mail.ts';
import type { MailSender } from './mail/mail-sender.ts';
import { openMailSender } from './mail/mail-setup.ts';
import { LogoutNotices } from './oauth/backchannel/logout-notices.ts';
import { noticeTargetPolicy } from './oauth/backchannel/notice-target.ts';
import type { KeyMaterial } from './oauth/keys/key-material.ts';
import { followSigningKeyChanges } from './oauth/keys/key-notifications.ts';
import { KeyStore } from './oauth/keys/key-store.ts';
import { derivedKeys } from './oauth/keys/derived-keys.ts';
import type { AttemptCounters } from './accounts/login-attempt-counters.ts';
import { openLoginGuard } from './accounts/login-guard.ts';
import { oauthRoutes } from './oauth/oauth.routes.ts';
import { healthRoutes } from './ops/health.routes.ts';
import { loggerOptions } from './ops/log-options.ts';
import { installMetrics } from './ops/metrics.ts';
import { EventRecorder } from './ops/audit/event-recorder.ts';
import { installRequestEvents } from './ops/audit/request-events.ts';
import { logSecurityEvent, recordingEventLog } from './ops/security-events.ts';
import { adminMessages } from './web/admin/admin.messages.ts';
import { adminPage } from './web/admin/admin.page.ts';
import { auditMessages } from './web/audit/audit.messages.ts';
import { auditPage } from './web/audit/audit.page.ts';
import { membersMessages } from './web/members/members.messages.ts';
import { membersPage } from './web/members/members.page.ts';
import { consentMessages } from './web/consent/consent.messages.ts';
import { consentPages } from './web/consent/consent.page.ts';
import { deviceMessages } from './web/device/device.messages.ts';
import { devicePages } from './web/device/device.page.ts';
import { endSessionMessages } from './web/end-session/end-session.messages.ts';
import { endSessionPages } from './web/end-session/end-session.page.ts';
import { errorMessages } from './web/errors/errors.messages.ts';
import { installPageErrors } from './web/errors/page-errors.ts';
import { homeMessages } from './web/home/home.messages.ts';
import { homePage } from './web/home/home.page.ts';
import { combineMessages } from './web/i18n.ts';
import { layoutMessages } from './web/layout.messages.ts';
import { loginMessages } from './web/login/login.messages.ts';
import { passwordMessages } from './web/password/password.messages.ts';
import { languagePage } from './web/language/language.page.ts';
import { loginPage } from './web/login/login.page.ts';
import { secondFactorMessages } from './web/login/second-factor.messages.ts';
import { secondFactorPage } from './web/login/second-factor.page.ts';
import { installSecondFactorGate } from './web/second-factor-gate.ts';
import { oneTimeCodeMailComposers } from './accounts/one-time-codes/one-time-codes.mail.ts';
import { passkeyLoginMessages } from './web/login/passkey-login.messages.ts';
import { unlockPages } from './web/login/unlock.page.ts';
import { passwordResetPages } from './web/password/password-reset.page.ts';
import { logoutMessages } from './web/logout/logout.messages.ts';
import { logoutPage } from './web/logout/logout.page.ts';
import { myAppsMessages } from './web/my-apps/my-apps.messages.ts';
import { myAppsPage } from './web/my-apps/my-apps.page.ts';
import { securityMessages } from './web/security/security.messages.ts';
import { securityPage } from './web/security/security.page.ts';
import { passkeysMessages } from './web/security/passkeys.messages.ts';
import { installPages } from './web/render.ts';

export interface AppDeps {
  readonly database: DatabaseHandle;
  readonly keys: KeyMaterial;
  readonly clock?: Clock;
  /** The queue of image work (uploads); by default one per app. */
  readonly imageWork?: ImageWorkQueue;
  /** The failed-login counters; by default in PostgreSQL, or in Redis when `REDIS_URL` is set. */
  readonly attempts?: AttemptCounters;
  /** Where log lines go instead of stdout (tests read the security events from it). */
  readonly logStream?: { write(line: string): void };
}

export const REQUEST_ID_HEADER = 'x-request-id';

declare module 'fastify' {
  interface FastifyInstance {
    /** The sender of back-channel logout notices: main.ts starts it, closing the app stops it, tests call `runOnce()`. */
    readonly logoutNotices: LogoutNotices;
    /** The sender of queued mail (none with `MAIL=off`): main.ts starts it, closing the app stops it, tests call `runOnce()`. */
    readonly mailSender: MailSender | undefined;
    /** Stores the security events in the audit log; tests await `settled()` before reading it. */
    readonly securityEvents: EventRecorder;
  }
}

export async function buildApp(config: Config, deps: AppDeps): Promise<FastifyInstance> {
  const clock = deps.clock ?? systemClock;
  const { db } = deps.database;
  const headers = securityHeaders({
    contentSecurityPolicy: {
      directives: {
        // The consent form's POST ends in a redirect to the client: form-action
        // 'self' would make browsers block it.
        'form-action': null,
        'upgrade-insecure-requests': config.isProduction ? [] : null,
      },
    },
    hsts: config.isProduction,
  }, config.isProduction);
  const app = Fastify({
    // A stream given (tests read the log): JSON lines into it, never pino-pretty's worker.
    logger: deps.logStream === undefined ? loggerOptions(config) : { ...(loggerOptions(config, false) as object), stream: deps.logStream },
    schemaController: { compilersFactory: { buildSerializer: serializersOnFirstUse } },
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    trustProxy: config.trustProxy,
    bodyLimit: 1024 * 1024,
    routerOptions: { maxParamLength: ROUTER_MAX_PARAM_LENGTH },
    frameworkErrors: frameworkErrorHandler(API_PRE_ROUTING_ERRORS, headers),
    clientErrorHandler: clientErrorHandler(API_PRE_ROUTING_ERRORS, headers),
    // Requests that still arrive while the server closes get the door's own 503 (problem+json, the OAuth
    // error, the error page) from the onRequest hook below, not Fastify's bare JSON.
    return503OnClosing: false,
    ...serverLimits(config, (address, refused) => logSecurityEvent(appEvents, {
      event: 'http.connections.refused', address, refused, limit: config.maxConnectionsPerAddress,
    })),
  }).withTypeProvider<TypeBoxTypeProvider>();

  const recorder = new EventRecorder(async () => db, clock, (error, rows) => app.log.error({ err: error, rows }, 'security events not stored in the audit log'));
  const appEvents = recordingEventLog(app.log, (event) => recorder.record(event));
  app.decorate('securityEvents', recorder);
  installRequestEvents(app, recorder);

  app.setValidatorCompiler(compiledOnFirstUse(compileValidator));
  let closing = false;
  // A keep-alive connection whose request was under way when the close began turns idle after its
  // response, when the close has reaped the idle ones already: it is reaped within a tenth of a second
  // then, or it would stay open until its keep-alive timeout (72 s) and the close wait for it past the
  // shutdown's 15 s. A request that arrives on it meanwhile (or was pipelined behind) gets the door's 503
  // with `Connection: close`. Nothing of this runs before the close: no hook on every request.
  let reaper: NodeJS.Timeout | undefined;
  app.addHook('preClose', (done) => {
    closing = true;
    reaper = setInterval(() => app.server.closeIdleConnections(), 100).unref();
    done();
  });
  app.addHook('onClose', (_instance, done) => {
    clearInterval(reaper);
    done();
  });
  app.addHook('onRequest', (request, reply, done) => {
    const set = request.routeOptions.config.securityHeaders === 'json' ? headers.json : headers.page;
    void reply.headers(set).header(REQUEST_ID_HEADER, request.id);
    if (closing) return done(new ServerClosing());
    const coded = unsupportedContentCoding(request.headers);
    if (coded) void reply.header('accept-encoding', UnsupportedContentCoding.accepted);
    done(coded);
  });
  installCookieChallenge(app, sessionCookie(config));
  await app.register(cookie);
  installFormParser(app, 64 * 1024);

  installSessions(app, config, db, clock);
  installPages(app, combineMessages([
    layoutMessages, homeMessages, errorMessages, loginMessages, secondFactorMessages, passwordMessages, logoutMessages, consentMessages, deviceMessages, endSessionMessages, myAppsMessages, securityMessages, adminMessages, auditMessages, membersMessages,
    passkeyLoginMessages, passkeysMessages,
  ]));
  installPageErrors(app);

  const keyStore = new KeyStore(db, deps.keys, clock);
  const keyChanges = followSigningKeyChanges(deps.database, keyStore, app.log);
  app.addHook('onClose', async () => { await keyChanges?.close(); });
  const logoutNotices = new LogoutNotices({
    db, clock, issuer: config.publicUrl, keys: keyStore, target: noticeTargetPolicy(config.isProduction), log: appEvents,
  });
  app.decorate('logoutNotices', logoutNotices);
  app.addHook('onClose', () => logoutNotices.stop());
  const mailSender = openMailSender(config.mail, config.publicUrl, db, clock, appEvents, {
    [UNLOCK_MAIL_KIND]: unlockMailComposer(config.publicUrl), [PASSWORD_CHANGED_MAIL_KIND]: passwordChangedMailComposer(config.publicUrl),
    [RESET_MAIL_KIND]: resetMailComposer(config.publicUrl), [PASSKEY_ADDED_MAIL_KIND]: passkeyAddedMailComposer(config.publicUrl), ...oneTimeCodeMailComposers(config.publicUrl),
  });
  app.decorate('mailSender', mailSender);
  app.addHook('onClose', async () => mailSender?.stop());

  await installOpenApi(app, config);
  if (config.metricsToken) {
    await installMetrics(app, { token: config.metricsToken, poolUse: deps.database.poolUse, logoutNoticeCounts: () => logoutNotices.counts, securityEvents: recorder });
  }
  const login = await openLoginGuard(config, db, derivedKeys(deps.keys).loginDevice, app.log, deps.attempts);
  app.addHook('onClose', async () => login.close());
  const redisPing = login.redisPing;
  await app.register(healthRoutes, {
    checks: [{ name: 'database', ping: () => deps.database.ping() }, ...(redisPing ? [{ name: 'redis' as const, ping: redisPing }] : [])],
  });
  const derived = derivedKeys(deps.keys);
  const oneTimeCodeKeys = { secret: derived.oneTimeCodeSecret, recoveryCode: derived.recoveryCode };
  installSecondFactorGate(app, db, clock, config.requireSecondFactor);
  await app.register(homePage, { db, clock });
  await app.register(languagePage, { config });
  await app.register(loginPage, { config, db, clock, loginGuard: login.guard });
  await app.register(secondFactorPage, { config, db, clock, loginGuard: login.guard, keys: oneTimeCodeKeys });
  if (config.mail.mode !== 'off') await app.register(unlockPages, { config, db, clock, loginGuard: login.guard });
  if (config.mail.mode !== 'off') await app.register(passwordResetPages, { config, db, clock, loginGuard: login.guard });
  await app.register(logoutPage, { config, db, clock });
  await app.register(adminPage, { config, db, clock, keys: deps.keys });
  await app.register(auditPage, { config, db, clock });
  await app.register(membersPage, { config, db, clock });
  await app.register(myAppsPage, { config, db, clock });
  await app.register(securityPage, { config, db, clock, loginGuard: login.guard, oneTimeCodeKeys });
  await app.register(oauthRoutes, {
    config, db, clock, keys: deps.keys, keyStore, pages: consentPages(config), endSessionPages: endSessionPages(config),
    devicePages: devicePages(config), attempts: login.guard.attempts,
  });

  await app.register(apiRoutes, { prefix: '/api', config, db, clock, keys: deps.keys, loginGuard: login.guard, imageWork: deps.imageWork });

  // Last of the close hooks (they run in order): the events of the others' final work are stored too.
  app.addHook('onClose', () => recorder.settled());
  return app;
}
