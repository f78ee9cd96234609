/**
 * A real SMTP server in the test process (smtp-server): it accepts messages
 * for `user:secret`, parses each one (mailparser) and can refuse for a while
 * with a reply a test chooses (451 for "try later", 550 for "never").
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface TestSmtpServer {
  url: string;
  readonly received: ParsedMail[];
  /** Envelope recipients of each accepted message. */
  readonly envelopes: string[][];
  /** Answer RCPT TO with this code and text until set back to undefined. */
  refuseWith: { code: number; text: string } | undefined;
  /** How many RCPT TO were refused. */
  refused: number;
  /** How many AUTH commands the server was sent. */
  authenticated: number;
  /** Resolves once `count` messages in all were received. */
  waitFor(count: number): Promise<void>;
  close(): Promise<void>;
}

export const SMTP_USER = 'mailer';
export const SMTP_PASSWORD = 's3cret-smtp';

export async function startSmtpServer(): Promise<TestSmtpServer> {
  const waiters: { count: number; resolve: () => void }[] = [];
  const state: TestSmtpServer = {
    url: '', received: [], envelopes: [], refuseWith: undefined, refused: 0, authenticated: 0,
    waitFor: (count) => new Promise((resolve) => {
      if (state.received.length >= count) resolve();
      else waiters.push({ count, resolve });
    }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = new SMTPServer({
    // Plain SMTP on loopback: nodemailer would take the STARTTLS offer and refuse the self-signed certificate.
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    onAuth(auth, _session, callback) {
      state.authenticated += 1;
      if (auth.username === SMTP_USER && auth.password === SMTP_PASSWORD) callback(null, { user: auth.username });
      else callback(new Error('Invalid username or password'));
    },
    onRcptTo(_address, _session, callback) {
      if (!state.refuseWith) return callback();
      state.refused += 1;
      const error = Object.assign(new Error(state.refuseWith.text), { responseCode: state.refuseWith.code });
      return callback(error);
    },
    onData(stream, session, callback) {
      simpleParser(stream).then((parsed) => {
        state.received.push(parsed);
        state.envelopes.push(session.envelope.rcptTo.map((r) => r.address));
        for (const waiter of waiters.filter((w) => state.received.length >= w.count)) waiter.resolve();
        callback();
      }, callback);
    },
    logger: false,
  });
  server.listen(0, '127.0.0.1');
  await once(server.server, 'listening');
  const { port } = server.server.address() as AddressInfo;
  state.url = `smtp://${SMTP_USER}:${SMTP_PASSWORD}@127.0.0.1:${port}`;
  return state;
}
