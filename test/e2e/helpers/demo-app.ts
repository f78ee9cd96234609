/**
 * The real application on a fresh database with the demo dataset, over real
 * HTTP. PUBLIC_URL is the address it listens on, so the OAuth issuer and
 * every absolute URL the server builds point back at it.
 */
import { loadDemoData, type DemoSummary, type DemoUser } from '../../../src/demo/demo-data.ts';
import type { TestApp } from '../../helpers/app.ts';
import { buildListeningApp } from '../../helpers/oauth.ts';

export interface DemoApp {
  readonly t: TestApp;
  readonly demo: DemoSummary;
  readonly baseUrl: string;
  user(email: string): DemoUser;
  close(): Promise<void>;
}

/** `env` adds to the test configuration (SMTP_URL for a test's own mail server, say). */
export async function startDemoApp(options: { env?: Record<string, string> } = {}): Promise<DemoApp> {
  const t = await buildListeningApp({ env: { LOG_LEVEL: 'warn', ...options.env } });
  const demo = await loadDemoData(t.db, t.keys);
  return {
    t,
    demo,
    baseUrl: t.issuer,
    user(email) {
      const found = demo.users.find((u) => u.email === email);
      if (!found) throw new Error(`no demo user ${email}`);
      return found;
    },
    close: () => t.close(),
  };
}
