/**
 * The OAuth 2.0 / OpenID Connect server (SPEC §5): the authorization and
 * logout endpoints render pages (the site's page error handler applies), the
 * JSON endpoints live in their own context with RFC 6749 error bodies. On
 * first use of the key store, the configured key becomes the first signing
 * key when none is stored yet.
 */
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { DB } from '../db/database.ts';
import type { AuthorizationPages } from './authorization-pages.ts';
import { ClientCache } from './clients/client-cache.ts';
import type { EndSessionPages } from './end-session-pages.ts';
import type { AttemptCounters } from '../accounts/login-attempt-counters.ts';
import type { DevicePages } from './device-pages.ts';
import { authorizeEndpoint } from './endpoints/authorize.ts';
import { deviceVerificationEndpoint } from './endpoints/device-verification.ts';
import { endSessionEndpoint } from './endpoints/end-session.ts';
import type { KeyMaterial } from './keys/key-material.ts';
import type { KeyStore } from './keys/key-store.ts';
import type { OAuthContext } from './oauth-context.ts';
import { noticeTargetPolicy } from './backchannel/notice-target.ts';
import { ClientJwks } from './clients/client-jwks.ts';
import { DpopNonces } from './dpop/dpop-nonce.ts';
import { derivedKeys } from './keys/derived-keys.ts';
import { oauthEndpoints } from './oauth-endpoints.ts';

export interface OAuthRoutesOptions {
  config: Config;
  db: DB;
  clock: Clock;
  keys: KeyMaterial;
  /** The instance's signing keys, shared with the sender of logout notices. */
  keyStore: KeyStore;
  /** The authorization endpoint's pages, rendered by web/. */
  pages: AuthorizationPages;
  /** The logout endpoint's pages, rendered by web/. */
  endSessionPages: EndSessionPages;
  /** The device verification pages (/device), rendered by web/. */
  devicePages: DevicePages;
  /** The failed-login counters, which also count wrong user codes at /device. */
  attempts: AttemptCounters;
}

export async function oauthRoutes(app: FastifyInstance, options: OAuthRoutesOptions): Promise<void> {
  const { config, db, clock, keys, keyStore, pages, endSessionPages } = options;
  const ctx: OAuthContext = {
    db, clock, issuer: config.publicUrl, material: keys, keys: keyStore, clients: new ClientCache(db),
    clientJwks: new ClientJwks(noticeTargetPolicy(config.isProduction), () => clock().getTime()), refreshGraceSeconds: config.refreshGraceSeconds,
    requirePushedAuthorizationRequests: config.requirePushedAuthorizationRequests,
    dpop: { nonces: new DpopNonces(derivedKeys(keys).dpopNonce), requireNonce: config.dpopNonceRequired },
  };
  authorizeEndpoint(app, ctx, pages);
  endSessionEndpoint(app, ctx, endSessionPages, config);
  deviceVerificationEndpoint(app, ctx, options.devicePages, pages, options.attempts, config);
  await app.register(oauthEndpoints, { ctx });
}
