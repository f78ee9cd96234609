/**
 * Every instance on one PostgreSQL learns of a change to the signing keys at
 * once: migration 048's trigger announces each change of `oauth_signing_keys`
 * (whoever made it: `keys rotate`, the purge, an operator's SQL), and the
 * instance reloads its keys — the JWKS it serves, the key it signs with and the
 * keys it verifies with. A restored listening connection reloads too: changes
 * announced while it was down were not heard. PGlite needs none of this: its
 * data directory admits one process, so nothing else changes the keys under a
 * running server.
 */
import type { DatabaseHandle } from '../../db/database.ts';
import type { Subscription } from '../../db/notifications.ts';
import type { KeyStore } from './key-store.ts';

/** The channel of migration 048's trigger. */
export const SIGNING_KEYS_CHANNEL = 'oauth_signing_keys';

interface WarningLog { warn(fields: object, message: string): void }

/** Starts listening when the database can; the caller closes the subscription with the app. */
export function followSigningKeyChanges(
  database: Pick<DatabaseHandle, 'listen'>, keys: Pick<KeyStore, 'invalidate'>, log: WarningLog,
): Subscription | undefined {
  return database.listen?.(SIGNING_KEYS_CHANNEL, {
    onNotify: () => { void keys.invalidate(); },
    onListening: () => { void keys.invalidate(); },
    onError: (error, retryInMs) => {
      log.warn({ err: error, retryInMs }, 'signing-key change notifications: not listening; keys reload every minute (the JWKS every 5 seconds) until the connection is back');
    },
  });
}
