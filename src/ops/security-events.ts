/**
 * Security events for operators (docs/security-events.md): one structured log
 * line per event, with a stable `event` name and ids only — never a secret,
 * token, code, password or email. Services receive an {@link EventLog} from
 * their caller (a route passes `request.log`, the CLI a line writer), so they
 * need no Fastify.
 */

/** The part of a pino logger an event needs; `request.log` and `app.log` are ones. */
export interface EventLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

export type SecurityEvent =
  /** An authorization code was presented again; the grant it issued (if any) is revoked. */
  | { event: 'oauth.code.reused'; clientId: string; grantId: number | null }
  /** A DPoP proof (RFC 9449) was presented a second time: captured and replayed, or a client sending one twice. */
  | { event: 'oauth.dpop.proof_replayed'; endpoint: string; jkt: string; ip: string }
  /** A retired refresh token was used outside the grace period; its whole family (grant) is revoked. */
  | { event: 'oauth.refresh_token.family_revoked'; clientId: string; grantId: number; userId: number; tokenId: number }
  /** The token or revocation endpoint refused a client's credentials. */
  | { event: 'oauth.client.authentication_failed'; clientId: string | null; reason: string; ip: string }
  /** A login attempt was refused because its account, source or device is locked for a while. */
  | { event: 'account.login.locked'; lockedBy: 'account' | 'source' | 'device' | 'second-factor'; retryAfterSeconds: number; userId?: number | null; ip: string }
  /** A member signed in with their password (`amr`: and a second factor, where they have one); their session started. */
  | { event: 'account.login.succeeded'; userId: number; amr: readonly string[]; ip: string }
  /**
   * A password login was refused: no account has the email (`userId` null), or the password is wrong; or (`lapsed`)
   * what a sign-in proved no longer held when its session or second step would begin (the password changed, the
   * second step was ended, the member deleted: sessions.ts `beginSession`).
   */
  | { event: 'account.login.failed'; userId: number | null; reason: 'unknown-email' | 'wrong-password' | 'lapsed'; ip: string }
  /** The member logged out (`POST /logout`, `POST /api/user/logout`); the grants issued under the session were revoked. */
  | { event: 'account.logout'; userId: number; grantsRevoked: number; ip: string }
  /** The user allowed a client's request on the consent page; `remembered` when they ticked "remember". */
  | { event: 'oauth.consent.granted'; userId: number; clientId: string; scopes: readonly string[]; remembered: boolean }
  | { event: 'oauth.consent.revoked'; userId: number; clientId: string }
  /** The member ended sessions of theirs at /settings/security: one (`scope: one`) or every other (`others`). */
  | { event: 'account.sessions.ended'; userId: number; scope: 'one' | 'others'; sessionsEnded: number; grantsRevoked: number }
  /** The member changed their password at /settings/security; their other sessions ended with it. */
  | { event: 'account.password.changed'; userId: number; sessionsEnded: number; grantsRevoked: number }
  /** A client's logout request ended the session (RP-Initiated Logout); `confirmed` when the member was asked. */
  | { event: 'oauth.logout'; userId: number; clientId: string | null; confirmed: boolean; grantsRevoked: number }
  /** A client registered, changed or deleted; `actorId`: the organisation member on the admin screen, null for an operator (the CLI). */
  | { event: 'oauth.client.created'; clientId: string; confidential: boolean; actorId?: number | null }
  | { event: 'oauth.client.changed'; clientId: string; change: 'settings' | 'secret'; actorId?: number | null }
  | { event: 'oauth.client.deleted'; clientId: string; actorId?: number | null }
  | { event: 'oauth.key.rotated'; kids: readonly string[]; retired: readonly string[]; activeFrom: string }
  /** `db backup` copied the embedded database and `keys` (the generated key files) into a file: whoever reads it holds them. */
  | { event: 'database.backed_up'; keys: readonly string[]; actorId: null }
  /**
   * `db restore` replaced the embedded database (and `keys`) with a backup: whatever was ended or revoked
   * since the backup was taken is live again. Stored in the restored database.
   */
  | { event: 'database.restored'; migrations: number; keys: readonly string[]; actorId: null }
  /** `demo remove` deleted the demo accounts and clients (their published credentials stop working). */
  | { event: 'demo.removed'; userIds: readonly number[]; clientIds: readonly string[] }
  /** A client's back-channel logout URI accepted a logout token (Back-Channel Logout 1.0). */
  | { event: 'oauth.backchannel_logout.sent'; clientId: string; userId: number; noticeId: number; attempts: number }
  /** A logout notice was given up: every attempt failed, or its URI is refused by the outbound policy. */
  | { event: 'oauth.backchannel_logout.abandoned'; clientId: string; userId: number; noticeId: number; attempts: number; error: string }
  /** Sockets over MAX_CONNECTIONS_PER_ADDRESS were closed on accept; `refused` since the last such line (one a minute at most). */
  | { event: 'http.connections.refused'; address: string; refused: number; limit: number }
  /** A mail was queued (mail_outbox row); `kind` says which (`login-unlock`). */
  | { event: 'mail.queued'; mailId: number; kind: string; ip: string }
  /** The SMTP server (or the outbox) accepted a queued mail. */
  | { event: 'mail.sent'; mailId: number; kind: string; attempts: number }
  /** A queued mail had nothing to send (its address belongs to no account). */
  | { event: 'mail.skipped'; mailId: number; kind: string; attempts: number }
  /** A queued mail was given up: every attempt failed, or the server refused it for good (5xx). */
  | { event: 'mail.failed'; mailId: number; kind: string; attempts: number; error: string }
  /** Unlock links for one address were asked for too often: no mail queued (the answer does not say so). */
  | { event: 'account.login.unlock_limited'; retryAfterSeconds: number; ip: string }
  /** An unlock link was followed: this browser now carries the account's device cookie. */
  | { event: 'account.login.unlocked'; userId: number; ip: string }
  /** An unlock link that is unknown, used or expired was followed. */
  | { event: 'account.login.unlock_invalid'; ip: string }
  /** A password reset link was asked for (whether the address has an account is decided when the mail is sent). */
  | { event: 'account.password_reset.requested'; ip: string }
  /** Reset links were asked for too often, for this address or from this client address: no mail queued (the answer does not say so). */
  | { event: 'account.password_reset.limited'; retryAfterSeconds: number; ip: string }
  /** A new password was set through a reset link; every session of the member ended, every grant revoked. */
  | { event: 'account.password_reset.completed'; userId: number; sessionsEnded: number; grantsRevoked: number; ip: string }
  /** A reset link that is unknown, used, expired, replaced or older than the password was used. */
  | { event: 'account.password_reset.invalid'; ip: string }
  /** The right password, or a valid passkey assertion (`passkeyId`), of a disabled member: the login was refused. */
  | { event: 'account.login.disabled'; userId: number; passkeyId?: number; ip: string }
  /**
   * An organisation member (`actorId`, on the admin screen) or an operator
   * (`actorId` null, the CLI) ended every session of the member `userId` and
   * revoked their grants.
   */
  | { event: 'account.member.sessions_ended'; userId: number; actorId: number | null; sessionsEnded: number; grantsRevoked: number }
  /** The member was disabled (no sign-in) and signed out everywhere; `actorId` as above. */
  | { event: 'account.member.disabled'; userId: number; actorId: number | null; sessionsEnded: number; grantsRevoked: number }
  /** An operator (`user add`) created the member with the role `role`. */
  | { event: 'account.member.created'; userId: number; actorId: null; role: string }
  /** An operator (`user set-password`) set the member's password: every session of the member ended. */
  | { event: 'account.member.password_set'; userId: number; actorId: null; sessionsEnded: number; grantsRevoked: number }
  /** An operator (`token revoke`) revoked the app grant `grantId` of the member `userId` to the client `clientId`. */
  | { event: 'oauth.grant.revoked'; grantId: number; clientId: string; userId: number; actorId: null }
  /** The member may sign in again; `actorId` as above. */
  | { event: 'account.member.enabled'; userId: number; actorId: number | null }
  /** The member's account was deleted: private data gone, the row anonymised; `actorId` as above. */
  | { event: 'account.member.deleted'; userId: number; actorId: number | null; sessionsEnded: number; grantsRevoked: number }
  /**
   * A signed-in member was refused an organisation page or action (OWASP Logging Cheat Sheet: authorization
   * failures): `role` (not organisation), `not-allowed` (another organisation member, or themselves:
   * `targetUserId`), `csrf` (an admin action's form token did not match); `page` the route. At most one a
   * minute for one member, route, reason and target (web/access-denied.ts); `refused` counts them.
   */
  | { event: 'access.denied'; userId: number; page: string; reason: 'role' | 'not-allowed' | 'csrf'; targetUserId?: number; refused: number; ip: string }
  /** A user code typed at /device matched no live, unconfirmed device authorization (RFC 8628 §5.1: counted against guessing). */
  | { event: 'oauth.device.user_code_refused'; ip: string }
  /** User codes were refused unchecked: too many wrong ones from this client address (`source`) or from everywhere (`all`). */
  | { event: 'oauth.device.user_code_limited'; limitedBy: 'source' | 'all'; retryAfterSeconds: number; ip: string }
  /** The member approved (`approved`) or denied a device's request at /device after confirming its user code. */
  | { event: 'oauth.device.decided'; userId: number; clientId: string; scopes: readonly string[]; approved: boolean }
  /** A device's approval link was opened, or its consent answered, in a browser that did not confirm the device's user code. */
  | { event: 'oauth.device.continuation_refused'; ip: string }
  /** The member turned one-time codes on (the enrolment's first code was right); ten recovery codes were issued. */
  | { event: 'account.second_factor.enrolled'; userId: number; method: 'otp' }
  /** One-time codes were turned off: by the member (with a current code) or by an operator's reset (passkeys deleted too). */
  | { event: 'account.second_factor.removed'; userId: number; by: 'member' | 'operator'; passkeysDeleted: number }
  /** A second factor was accepted: at the second step of a login, or in a step-up for an app. */
  | { event: 'account.second_factor.succeeded'; userId: number; method: 'otp' | 'recovery_code'; stepUp: boolean; ip: string }
  | { event: 'account.second_factor.succeeded'; userId: number; method: 'passkey'; passkeyId: number; amr: readonly string[]; stepUp: boolean; ip: string }
  /** A wrong one-time or recovery code, or a passkey at that step that did not verify or is another member's (counted by the login throttle). */
  | { event: 'account.second_factor.failed'; userId: number; stepUp: boolean; ip: string }
  | { event: 'account.second_factor.failed'; userId: number; method: 'passkey'; reason: string; passkeyId: number | null; stepUp: boolean; ip: string }
  /** A recovery code was used (it is spent); `remaining` unused ones are left. */
  | { event: 'account.recovery_code.used'; userId: number; remaining: number; ip: string }
  /** The member replaced their recovery codes with ten new ones. */
  | { event: 'account.recovery_codes.regenerated'; userId: number }
  /** An app asked for a stronger sign-in than the session's (acr_values, claims): `outcome` what followed. */
  | { event: 'oauth.step_up'; userId: number; clientId: string; requested: readonly string[]; outcome: 'asked' | 'login' | 'unmet' | 'login_required' | 'passed_over' }
  /** The member added a passkey at /settings/security. */
  | { event: 'account.passkey.registered'; userId: number; passkeyId: number; deviceType: 'singleDevice' | 'multiDevice'; backedUp: boolean }
  /** The member removed one of their passkeys at /settings/security. */
  | { event: 'account.passkey.removed'; userId: number; passkeyId: number; sessionsEnded: number; grantsRevoked: number }
  /** A member signed in (or re-authenticated) with a passkey. */
  | { event: 'account.passkey.login'; userId: number; passkeyId: number; amr: readonly string[]; ip: string }
  /** A sign-in with a passkey was refused; `reason` for the operator only (the answer is the same for all). */
  | { event: 'account.passkey.login_failed'; reason: 'unknown-credential' | 'invalid-response' | 'signature' | 'user-handle' | 'backup-eligibility' | 'counter' | 'other-member'; userId: number | null; passkeyId: number | null; ip: string }
  /** A passkey's signature counter did not move forward: possibly a cloned authenticator; the sign-in was refused. */
  | { event: 'account.passkey.counter_regressed'; userId: number; passkeyId: number; storedCount: number; presentedCount: number; ip: string };

export type SecurityEventName = SecurityEvent['event'];

/** Level and message of each event: warn for what may be an attack, info for what an operator or member did. */
const DESCRIPTIONS: Record<SecurityEventName, ['warn' | 'info', string]> = {
  'oauth.code.reused': ['warn', 'authorization code reused; the grant it issued is revoked'],
  'oauth.dpop.proof_replayed': ['warn', 'DPoP proof replayed'],
  'oauth.refresh_token.family_revoked': ['warn', 'retired refresh token reused; its token family is revoked'],
  'oauth.client.authentication_failed': ['warn', 'client authentication failed'],
  'account.login.locked': ['warn', 'login refused: too many failed attempts'],
  'account.login.succeeded': ['info', 'signed in; session started'],
  'account.login.failed': ['warn', 'login refused: wrong email or password'],
  'account.logout': ['info', 'logged out by the member'],
  'oauth.consent.granted': ['info', 'consent granted'],
  'oauth.consent.revoked': ['info', 'consent revoked'],
  'account.sessions.ended': ['info', 'sessions ended by the member'],
  'account.password.changed': ['info', 'password changed by the member'],
  'oauth.logout': ['info', 'session ended by a client\'s logout request'],
  'oauth.client.created': ['info', 'OAuth client created'],
  'oauth.client.changed': ['info', 'OAuth client changed'],
  'oauth.client.deleted': ['info', 'OAuth client deleted'],
  'oauth.key.rotated': ['info', 'signing key rotated'],
  'database.backed_up': ['info', 'embedded database and its keys backed up by an operator'],
  'database.restored': ['info', 'embedded database restored from a backup by an operator: what was ended or revoked since the backup is live again'],
  'demo.removed': ['info', 'demo accounts and clients removed'],
  'oauth.backchannel_logout.sent': ['info', 'logout notice delivered'],
  'oauth.backchannel_logout.abandoned': ['warn', 'logout notice abandoned'],
  'http.connections.refused': ['warn', 'connections refused: too many from one address'],
  'mail.queued': ['info', 'mail queued'],
  'mail.sent': ['info', 'mail sent'],
  'mail.skipped': ['info', 'mail skipped: nothing to send'],
  'mail.failed': ['warn', 'mail abandoned'],
  'account.login.unlock_limited': ['warn', 'unlock link refused: too many asked for this address'],
  'account.login.unlocked': ['info', 'login unlocked by a link sent by email'],
  'account.login.unlock_invalid': ['warn', 'unlock link unknown, used or expired'],
  'account.password_reset.requested': ['info', 'password reset link asked for'],
  'account.password_reset.limited': ['warn', 'password reset link refused: too many asked for this address or from this client'],
  'account.password_reset.completed': ['info', 'password reset through a link sent by email'],
  'account.password_reset.invalid': ['warn', 'password reset link unknown, used, expired or replaced'],
  'account.login.disabled': ['warn', 'login refused: the account is disabled'],
  'account.member.sessions_ended': ['info', 'sessions of a member ended by the organisation or an operator'],
  'account.member.disabled': ['info', 'member disabled'],
  'account.member.enabled': ['info', 'member enabled'],
  'account.member.created': ['info', 'member created by an operator'],
  'account.member.password_set': ['info', 'password set by an operator'],
  'oauth.grant.revoked': ['info', 'app grant revoked by an operator'],
  'account.member.deleted': ['info', 'member deleted'],
  'access.denied': ['warn', 'a signed-in member was refused an organisation page or action'],
  'oauth.device.user_code_refused': ['warn', 'device user code unknown, used or expired'],
  'oauth.device.user_code_limited': ['warn', 'device user code refused unchecked: too many wrong codes'],
  'oauth.device.decided': ['info', 'device authorization answered by the member'],
  'oauth.device.continuation_refused': ['warn', 'device approval link opened in a browser that did not confirm its code'],
  'account.second_factor.enrolled': ['info', 'one-time codes turned on'],
  'account.second_factor.removed': ['info', 'second factor removed'],
  'account.second_factor.succeeded': ['info', 'second factor accepted'],
  'account.second_factor.failed': ['warn', 'second factor refused'],
  'account.recovery_code.used': ['warn', 'recovery code used'],
  'account.recovery_codes.regenerated': ['info', 'recovery codes regenerated'],
  'oauth.step_up': ['info', 'stronger sign-in asked for by an app'],
  'account.passkey.registered': ['info', 'passkey added by the member'],
  'account.passkey.removed': ['info', 'passkey removed by the member'],
  'account.passkey.login': ['info', 'signed in with a passkey'],
  'account.passkey.login_failed': ['warn', 'sign-in with a passkey refused'],
  'account.passkey.counter_regressed': ['warn', 'passkey signature counter went backwards: possibly a cloned authenticator'],
};

/** Every event's name, in the order above (the audit page's filter lists them). */
export const SECURITY_EVENT_NAMES = Object.keys(DESCRIPTIONS) as SecurityEventName[];

export function isSecurityEventName(name: unknown): name is SecurityEventName {
  return typeof name === 'string' && Object.hasOwn(DESCRIPTIONS, name);
}

export function levelOfEvent(name: SecurityEventName): 'warn' | 'info' {
  return DESCRIPTIONS[name][0];
}

/** The fields of a log call when they are a security event (the server's logger stores those, app.ts). */
export function asSecurityEvent(fields: unknown): SecurityEvent | undefined {
  if (typeof fields !== 'object' || fields === null) return undefined;
  return isSecurityEventName((fields as { event?: unknown }).event) ? fields as SecurityEvent : undefined;
}

/** `log`, whose security events also go to `record` (the CLI stores them in the audit log). */
export function recordingEventLog(log: EventLog, record: (event: SecurityEvent) => void): EventLog {
  const recording = (level: 'info' | 'warn') => (fields: object, message: string) => {
    log[level](fields, message);
    const event = asSecurityEvent(fields);
    if (event) record(event);
  };
  return { info: recording('info'), warn: recording('warn') };
}

/**
 * Events held back until `release()`: for work in one transaction, whose events
 * must not be recorded when it rolls back. What `release` does not see is dropped.
 */
export function deferredEventLog(log: EventLog): { log: EventLog; release(): void } {
  const held: ['info' | 'warn', object, string][] = [];
  return {
    log: { info: (fields, message) => held.push(['info', fields, message]), warn: (fields, message) => held.push(['warn', fields, message]) },
    release: () => {
      for (const [level, fields, message] of held.splice(0)) log[level](fields, message);
    },
  };
}

/** `log`, each security event of it naming who acted: `actorId`, an organisation member's id on the admin screen, null for an operator. */
export function withActor(log: EventLog, actorId: number | null): EventLog {
  const adding = (level: 'info' | 'warn') => (fields: object, message: string) => log[level](asSecurityEvent(fields) ? { ...fields, actorId } : fields, message);
  return { info: adding('info'), warn: adding('warn') };
}

export function logSecurityEvent(log: EventLog, event: SecurityEvent): void {
  const [level, message] = DESCRIPTIONS[event.event];
  log[level](event, message);
}

/** Where no logger runs (the CLI): pino-shaped JSON lines (level 30 info, 40 warn) on a stream. */
export function jsonLineEventLog(stream: { write(line: string): unknown }, clock: () => Date = () => new Date()): EventLog {
  const write = (level: number) => (fields: object, message: string) => {
    stream.write(`${JSON.stringify({ level, time: clock().getTime(), ...fields, msg: message })}\n`);
  };
  return { info: write(30), warn: write(40) };
}

/** For callers that have nowhere to log to (the demo dataset, tests of other rules). */
export const NO_EVENT_LOG: EventLog = { info: () => undefined, warn: () => undefined };
