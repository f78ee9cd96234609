/**
 * `oauth try`: a complete sign-in as a client application would do it
 * (authorization code with PKCE, state and nonce; RFC 6749 §4.1, RFC 7636,
 * OIDC Core §3.1), with a one-shot listener on the client's loopback redirect
 * URI. Prints the ID token's claims and the userinfo response.
 */
import * as oidc from 'openid-client';
import { DEMO_CLIENT_IDS, DEMO_CLIENT_SECRET } from '../demo/demo-oauth.ts';
import { RefusedInput, UsageError, type CliCommand, type CliContext, type OptionValues } from './command.ts';
import { listenForCallback, loopbackAddress } from './oauth-try/callback-listener.ts';

const [DEMO_CLIENT_ID, DEMO_PUBLIC_CLIENT_ID] = DEMO_CLIENT_IDS;

/** The demo clients' loopback redirect URIs (demo-oauth.ts), so that they need no --redirect-uri. */
const DEMO_REDIRECT_URIS: Readonly<Record<string, string>> = {
  'demo-app': 'http://127.0.0.1:3000/callback',
  'demo-spa': 'http://127.0.0.1:5173/callback',
};

export const oauthTryCommand: CliCommand = {
  words: ['oauth', 'try'],
  summary: 'sign in through a client in the browser and print the ID token claims and userinfo',
  details: [
    'Listens once on the client\'s loopback redirect URI, prints the authorization URL to open,',
    'exchanges the code it receives and answers the browser with a "you can close this tab" page.',
    'The client secret never comes from an argument (it would show in ps and the shell history): OAUTH_CLIENT_SECRET,',
    'else the demo secret for demo-app (demo-spa has none), else the first line of standard input (asked without echo on a terminal);',
    'nothing there means a public client: printf \'%s\\n\' "$SECRET" | foodsharing oauth try --client ID …',
  ],
  options: {
    client: { type: 'string', value: 'ID', help: 'the client id (default demo-app)' },
    secret: { type: 'string', value: 'S', refused: true, help: 'refused: a secret here shows in ps and the shell history (standard input or OAUTH_CLIENT_SECRET instead)' },
    'redirect-uri': { type: 'string', value: 'URI', help: 'a registered http loopback redirect URI (default for the demo clients: port 3000 / 5173)' },
    issuer: { type: 'string', value: 'URL', help: 'the server (default PUBLIC_URL, else http://localhost:PORT; PORT defaults to 8080)' },
    scope: { type: 'string', value: 'SCOPES', help: 'space-separated scopes (default "openid profile email")' },
    timeout: { type: 'string', value: 'SECONDS', help: 'how long to wait for the browser (default 300)' },
  },
  async run(context, values) {
    const settings = trySettings(values, () => context.config.publicUrl);
    settings.secret = await clientSecret(context, settings.clientId);
    const config = await discover(settings);
    const listener = await listenForCallback(settings.redirectUri, settings.timeoutSeconds);
    try {
      const verifier = oidc.randomPKCECodeVerifier();
      const state = oidc.randomState();
      const nonce = oidc.randomNonce();
      const authorizationUrl = oidc.buildAuthorizationUrl(config, {
        redirect_uri: settings.redirectUri, scope: settings.scope, state, nonce,
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
      });
      context.say(`Open this URL in a browser, sign in and allow:\n\n  ${authorizationUrl.href}\n`);
      context.say(`Waiting up to ${settings.timeoutSeconds} s for the redirect to ${settings.redirectUri} …`);
      const callback = await listener.callback;
      try {
        const tokens = await oidc.authorizationCodeGrant(config, callback.url, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce, idTokenExpected: true });
        const claims = tokens.claims()!;
        const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
        await callback.answer('Signed in', `Signed in as ${String(userinfo.email ?? claims.sub)}. You can close this tab and return to the terminal.`);
        return {
          json: { authorizationUrl: authorizationUrl.href, scope: tokens.scope ?? null, refreshToken: tokens.refresh_token !== undefined, claims, userinfo },
          text: ['ID token claims:', ...JSON.stringify(claims, null, 2).split('\n'), 'Userinfo response:', ...JSON.stringify(userinfo, null, 2).split('\n')],
        };
      } catch (error) {
        const message = describeFailure(error);
        await callback.answer('Sign-in failed', `${message} — see the terminal.`);
        throw new RefusedInput(`${message}${scopeHint(error, settings)}`);
      }
    } finally {
      await listener.close();
    }
  },
};

interface TrySettings { clientId: string; secret?: string; redirectUri: string; issuer: string; scope: string; timeoutSeconds: number }

function trySettings(values: OptionValues, defaultIssuer: () => string): TrySettings {
  if (values.secret !== undefined) {
    throw new UsageError('--secret is refused: a secret on the command line shows in ps and the shell history. '
      + 'Give it on standard input (printf \'%s\\n\' "$SECRET" | … oauth try …) or in OAUTH_CLIENT_SECRET');
  }
  const clientId = (values.client as string | undefined) ?? 'demo-app';
  const redirectUri = (values['redirect-uri'] as string | undefined) ?? DEMO_REDIRECT_URIS[clientId];
  if (!redirectUri) throw new UsageError(`--redirect-uri is required for a client other than ${Object.keys(DEMO_REDIRECT_URIS).join(' or ')}`);
  loopbackAddress(redirectUri); // refused before anything waits
  const timeout = (values.timeout as string | undefined) ?? '300';
  if (!/^[1-9]\d{0,5}$/.test(timeout)) throw new UsageError(`--timeout must be a whole number of seconds, got ${JSON.stringify(timeout)}`);
  return {
    clientId,
    redirectUri,
    issuer: ((values.issuer as string | undefined) ?? defaultIssuer()).replace(/\/+$/, ''),
    scope: (values.scope as string | undefined) ?? 'openid profile email',
    timeoutSeconds: Number(timeout),
  };
}

/** OAUTH_CLIENT_SECRET, the demo secret for demo-app (demo-spa is public), else standard input; nothing there: a public client. */
async function clientSecret(context: CliContext, clientId: string): Promise<string | undefined> {
  const fromEnvironment = context.environment.OAUTH_CLIENT_SECRET?.trim();
  if (fromEnvironment) return fromEnvironment;
  if (clientId === DEMO_CLIENT_ID) return DEMO_CLIENT_SECRET;
  if (clientId === DEMO_PUBLIC_CLIENT_ID) return undefined;
  const typed = await context.readSecretLine(`client secret of ${clientId} (Enter for a public client): `);
  return typed === '' ? undefined : typed;
}

async function discover(settings: TrySettings): Promise<oidc.Configuration> {
  let issuer: URL;
  try {
    issuer = new URL(settings.issuer);
  } catch {
    throw new UsageError(`--issuer ${JSON.stringify(settings.issuer)} is not a URL`);
  }
  // A local server is plain http; openid-client insists on https unless told otherwise.
  const options = issuer.protocol === 'http:' ? { execute: [oidc.allowInsecureRequests] } : undefined;
  try {
    return await oidc.discovery(issuer, settings.clientId, settings.secret, settings.secret === undefined ? oidc.None() : undefined, options);
  } catch (error) {
    throw new RefusedInput(`discovery at ${settings.issuer} failed: ${describeFailure(error)} (is the server running? --issuer sets its address)`);
  }
}

/** An OAuth error response names its code and description; anything else its message. */
/**
 * What to do about an `invalid_scope` (likeliest: a client registered without --scope, which may use openid
 * only): ask for fewer, or add the refused ones to the client — keeping the scopes it has, since
 * `client update --scope` replaces the list (and a scope taken from a client is taken from its grants).
 */
function scopeHint(error: unknown, settings: TrySettings): string {
  const e = error as { error?: string; error_description?: string };
  // Only a scope the client may not use has this hint (an unknown one, or no openid, says what to fix itself).
  const refused = e.error === 'invalid_scope' ? /^Scope not allowed for this client: (.+)$/.exec(e.error_description ?? '')?.[1]?.split(' ') : undefined;
  if (refused === undefined) return '';
  const allowed = settings.scope.split(' ').filter((scope) => scope !== '' && !refused.includes(scope));
  const fewer = allowed.length > 0 ? `ask only for --scope "${allowed.join(' ')}"` : 'ask for other scopes with --scope';
  return ` (${fewer}, or add ${refused.join(', ')} to the client's scopes (client show --client-id ${settings.clientId} lists them; `
    + 'client update --scope replaces the whole list, so name them all))';
}

function describeFailure(error: unknown): string {
  const e = error as { error?: string; error_description?: string; message?: string; cause?: { message?: string; code?: string } };
  if (e.error) return `${e.error}${e.error_description ? `: ${e.error_description}` : ''}`;
  return [e.message ?? String(error), e.cause?.code ?? e.cause?.message].filter(Boolean).join(': ');
}
