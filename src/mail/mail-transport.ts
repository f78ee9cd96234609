/**
 * Where composed messages go (config `SMTP_URL`, `MAIL`): an SMTP server
 * through nodemailer (`smtps://` is TLS from the start; `smtp://` upgrades
 * with STARTTLS, which it requires of any server but a relay on this host:
 * {@link requiresStartTls}), or, outside production without
 * `SMTP_URL`, `.eml` files in `DATA_DIR/outbox/` with their links logged, so
 * that a newcomer can follow them.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Transporter } from 'nodemailer';
import { onFirstUse } from '../on-first-use.ts';
import type { RenderedMail } from './mail-message.ts';
import type { MailLocale } from './mail.tables.ts';

export interface OutgoingMail extends RenderedMail {
  readonly to: string;
  readonly locale: MailLocale;
  /** RFC 5322 §3.6.4, without the angle brackets: `<uuid>@<PUBLIC_URL host>`. */
  readonly messageId: string;
  readonly date: Date;
  /** The links it carries: logged by the outbox transport only. */
  readonly links: readonly string[];
}

export interface MailTransport {
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

/** Refused or failed delivery; `permanent` when the server's answer says retrying cannot help (5xx). */
export class MailDeliveryError extends Error {
  constructor(message: string, readonly permanent: boolean) {
    super(message);
    this.name = 'MailDeliveryError';
  }
}

export interface MailLog { info(fields: object, message: string): void }

/** Timeouts far below the nodemailer defaults (2 and 10 minutes): the sender's lease must outlast an attempt. */
const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000, dnsTimeout: 10_000 };
/** What an attempt may take at most, whatever the server does. */
export const MAX_ATTEMPT_MS = SMTP_TIMEOUTS.connectionTimeout + SMTP_TIMEOUTS.greetingTimeout + 2 * SMTP_TIMEOUTS.socketTimeout;

function messageOf(from: string, mail: OutgoingMail) {
  return {
    from, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html,
    messageId: `<${mail.messageId}>`, date: mail.date,
    headers: { 'Content-Language': mail.locale, 'Auto-Submitted': 'auto-generated' },
    // Nothing in a message is fetched from a file or a URL.
    disableFileAccess: true, disableUrlAccess: true,
  };
}

type Nodemailer = typeof import('nodemailer');
const loadNodemailer = onFirstUse(() => import('nodemailer'));

/**
 * nodemailer (about 0.08 s of CPU to load) loads with the first message, not
 * at start-up; so does each transport's transporter. SMTP_URL itself is
 * checked by the configuration, at start.
 */
function lazyTransporter(options: () => Parameters<Nodemailer['createTransport']>[0]) {
  let opening: Promise<Transporter> | undefined;
  return {
    open(): Promise<Transporter> {
      opening ??= loadNodemailer().then(({ createTransport }) => createTransport(options()));
      return opening;
    },
    close(): void {
      void opening?.then((transporter) => transporter.close(), () => undefined);
    },
  };
}

/**
 * RFC 8314, RFC 4616 §4: `smtp://` to another host must upgrade with STARTTLS before the
 * password, and the reset and unlock links of the messages, cross the network (an attacker on
 * the path could strip the server's offer); a relay on this host (loopback) may take them as
 * they are. `smtps://` is TLS from the start.
 */
export function requiresStartTls(url: string): boolean {
  const parsed = new URL(url);
  if (parsed.protocol !== 'smtp:') return false;
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  return !(host === 'localhost' || host === '::1' || /^127\./.test(host));
}

export function smtpTransport(url: string, from: string, { requireTls = requiresStartTls(url) }: { requireTls?: boolean } = {}): MailTransport {
  const transporter = lazyTransporter(() => ({ url, requireTLS: requireTls, ...SMTP_TIMEOUTS, disableFileAccess: true, disableUrlAccess: true }));
  return {
    async send(mail) {
      const opened = await transporter.open();
      try {
        await opened.sendMail(messageOf(from, mail));
      } catch (error) {
        throw deliveryError(error);
      }
    },
    close: () => transporter.close(),
  };
}

/** The reason to record: the server's reply or the network error, never the URL with its password. */
function deliveryError(error: unknown): MailDeliveryError {
  const failure = error as { responseCode?: number; response?: string; code?: string; message?: string };
  // The server's configuration, not the message: retried as the outbox retries, never abandoned at once.
  if (failure.code === 'ETLS') return new MailDeliveryError('not delivered: STARTTLS is required and the server did not complete it', false);
  if (typeof failure.responseCode === 'number') {
    const reply = (failure.response ?? String(failure.responseCode)).slice(0, 200);
    return new MailDeliveryError(`answered ${reply}`, failure.responseCode >= 500);
  }
  return new MailDeliveryError(`not delivered: ${failure.code ?? failure.message ?? 'unknown error'}`.slice(0, 200), false);
}

/** Each message as `<time>-<id>.eml` in `dir` (mode 0600: it holds live links); its links are logged. */
export function outboxTransport(dir: string, from: string, log: MailLog): MailTransport {
  const transporter = lazyTransporter(() => ({ streamTransport: true, buffer: true, newline: 'unix' }));
  return {
    async send(mail) {
      const info = await (await transporter.open()).sendMail(messageOf(from, mail));
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const file = path.join(dir, `${mail.date.toISOString().replace(/[:.]/g, '-')}-${mail.messageId.split('@')[0]}.eml`);
      await writeFile(file, info.message as Buffer, { mode: 0o600 });
      log.info({ to: mail.to, subject: mail.subject, file, links: mail.links }, 'mail written to the outbox (no SMTP_URL set)');
    },
    close: () => transporter.close(),
  };
}
