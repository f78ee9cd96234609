/**
 * OAuth error responses, one class per error code (RFC 6749 §4.1.2.1, §5.2,
 * RFC 6750 §3.1, RFC 7009 §2.2.1, OpenID Connect Core §3.1.2.6). The OAuth
 * JSON endpoints answer `{error, error_description}`; the authorization
 * endpoint sends the same pair back to the client's redirect URI.
 */
import type { SecurityEvent } from '../ops/security-events.ts';

export abstract class OAuthError extends Error {
  abstract readonly error: string;
  readonly status: number = 400;
  /** Extra response headers (WWW-Authenticate, Retry-After). */
  headers: Record<string, string> = {};
  /**
   * For operators only, never sent: which of the causes behind one public
   * description this was (fosite's hint/debug split).
   */
  detail: string | undefined;
  /** The security event this refusal is, logged once by the endpoint that answers it. */
  securityEvent: SecurityEvent | undefined;
  /**
   * Whether the failure limiter counts it: not the device flow's answers to a genuine device code (RFC 8628
   * §3.5: not yet, slower, denied, expired), which only the code's holder can get, and which must reach it.
   */
  readonly countsAsFailure: boolean = true;
  /** A "not yet" of the device flow (authorization_pending, slow_down): it wrote the poll's pace, so it is not decided again. */
  readonly isNotYet: boolean = false;

  constructor(readonly description: string) {
    super(description);
    this.name = new.target.name;
  }

  /** Sets the operator-facing {@link detail}; the response stays the same. */
  withDetail(detail: string): this {
    this.detail = detail;
    return this;
  }

  /** Marks the refusal as a {@link SecurityEvent}; the response stays the same. */
  withEvent(event: SecurityEvent): this {
    this.securityEvent = event;
    return this;
  }

  toJSON(): { error: string; error_description: string } {
    return { error: this.error, error_description: this.description };
  }
}

export class InvalidRequest extends OAuthError { readonly error = 'invalid_request'; }
/** RFC 9126 §2.3: a pushed authorization request beyond the size this server takes (413). */
export class PayloadTooLarge extends InvalidRequest { override readonly status = 413; }
export class InvalidGrant extends OAuthError { readonly error = 'invalid_grant'; }
export class UnauthorizedClient extends OAuthError { readonly error = 'unauthorized_client'; }
export class UnsupportedGrantType extends OAuthError { readonly error = 'unsupported_grant_type'; }
export class UnsupportedResponseType extends OAuthError { readonly error = 'unsupported_response_type'; }
export class UnsupportedTokenType extends OAuthError { readonly error = 'unsupported_token_type'; }
export class InvalidScope extends OAuthError { readonly error = 'invalid_scope'; }
/** Also RFC 8628 §3.5: the member said no to a device; not counted, like the device flow's other answers. */
export class AccessDenied extends OAuthError {
  readonly error = 'access_denied';
  override readonly countsAsFailure = false;
}
export class LoginRequired extends OAuthError { readonly error = 'login_required'; }
export class ConsentRequired extends OAuthError { readonly error = 'consent_required'; }
/** OpenID Connect Core 1.0 errata set 2, §3.1.2.6: the requested authentication context cannot be met. */
export class UnmetAuthenticationRequirements extends OAuthError { readonly error = 'unmet_authentication_requirements'; }
export class RequestNotSupported extends OAuthError { readonly error = 'request_not_supported'; }
export class RequestUriNotSupported extends OAuthError { readonly error = 'request_uri_not_supported'; }

/** RFC 8628 §3.5: the member has not decided yet; the device polls again after its interval. */
export class AuthorizationPending extends OAuthError {
  readonly error = 'authorization_pending';
  override readonly countsAsFailure = false;
  override readonly isNotYet = true;
}

/** RFC 8628 §3.5: polling faster than the interval; the interval grows by 5 seconds. */
export class SlowDown extends OAuthError {
  readonly error = 'slow_down';
  override readonly countsAsFailure = false;
  override readonly isNotYet = true;
}

/** RFC 8628 §3.5: the device code expired before it was redeemed; the device starts again. */
export class ExpiredToken extends OAuthError {
  readonly error = 'expired_token';
  override readonly countsAsFailure = false;
}

/** RFC 6749 §5.2: 401, with `WWW-Authenticate` when the client used HTTP Basic. */
export class InvalidClient extends OAuthError {
  readonly error = 'invalid_client';
  override readonly status = 401;
  /** `clientId`: the id presented, when it could be a registered one (for the security event). */
  constructor(description: string, usedBasic: boolean, readonly clientId: string | null = null) {
    super(description);
    if (usedBasic) this.headers['www-authenticate'] = 'Basic realm="oauth", charset="UTF-8"';
  }
}

/** RFC 6750 §3.1: a bad access token at a protected resource. */
export class InvalidToken extends OAuthError {
  readonly error = 'invalid_token';
  override readonly status = 401;
  constructor(description: string) {
    super(description);
    this.headers['www-authenticate'] = `Bearer error="invalid_token", error_description="${description.replace(/["\\]/g, '')}"`;
  }
}

/** RFC 6750 §3.1: no access token at all (or only another scheme's credentials): a challenge without an error code. */
export class MissingToken extends InvalidToken {
  constructor(description: string) {
    super(description);
    this.headers['www-authenticate'] = 'Bearer';
  }
}

/** RFC 6750 §3.1: a valid token without the scope the resource needs, 403 with its challenge. */
export class InsufficientScope extends OAuthError {
  readonly error = 'insufficient_scope';
  override readonly status = 403;
  constructor(description: string, scope: string) {
    super(description);
    this.headers['www-authenticate'] = `Bearer error="insufficient_scope", scope="${scope}", error_description="${description.replace(/["\\]/g, '')}"`;
  }
}

/** RFC 6750 §3.1: a malformed request at a protected resource, 400 with its challenge. */
export class InvalidBearerRequest extends InvalidRequest {
  constructor(description: string) {
    super(description);
    this.headers['www-authenticate'] = `Bearer error="invalid_request", error_description="${description.replace(/["\\]/g, '')}"`;
  }
}

/**
 * A JSON endpoint asked with a method it does not take (RFC 9110 §15.5.6): POST only (RFC 6749 §3.2,
 * RFC 7009 §2.1), or GET and POST (userinfo, OpenID Connect Core §5.3.1).
 */
export class MethodNotAllowed extends OAuthError {
  readonly error = 'invalid_request';
  override readonly status = 405;
  /** `preflight`: the endpoint answers CORS preflights (oauth/cors.ts), so OPTIONS is allowed too. */
  constructor(allowed: readonly string[] = ['POST'], preflight = true) {
    super(`This endpoint accepts ${allowed.join(' and ')} only.`);
    this.headers.allow = [...allowed, ...(preflight ? ['OPTIONS'] : [])].join(', ');
  }
}

export class TooManyRequests extends OAuthError {
  readonly error = 'invalid_request';
  override readonly status = 429;
  constructor(retryAfterSeconds: number) {
    super('Too many failed requests. Please retry later.');
    this.headers['retry-after'] = String(retryAfterSeconds);
  }
}

export class ServerError extends OAuthError { readonly error = 'server_error'; override readonly status = 500; }
export class TemporarilyUnavailable extends OAuthError { readonly error = 'temporarily_unavailable'; override readonly status = 503; }

/** The seed's message for every code failure at the token endpoint (SPEC §5.3). */
export const INVALID_OR_EXPIRED_CODE = 'Invalid or expired code';

/** RFC 9449 §5, §7.1: the DPoP proof is missing where required, malformed, or does not match the request. */
export class InvalidDpopProof extends OAuthError { readonly error = 'invalid_dpop_proof'; }

/** RFC 9449 §8, §9: the proof must carry the server's nonce, sent back in the `DPoP-Nonce` header. */
export class UseDpopNonce extends OAuthError {
  readonly error = 'use_dpop_nonce';
  constructor(description: string, nonce: string) {
    super(description);
    this.headers['dpop-nonce'] = nonce;
  }
}

/**
 * RFC 9449 §7.1: a refusal at a protected resource of a DPoP request or a
 * DPoP-bound token: 401 with the DPoP challenge (its `algs`), and the nonce to
 * use when the refusal is `use_dpop_nonce` (§9).
 */
export class DpopChallenge extends OAuthError {
  override readonly status: number;
  /** `status`: 403 for insufficient_scope, else 401 (RFC 6750 §3.1). */
  constructor(readonly error: string, description: string, algs: readonly string[], headers: Record<string, string> = {}, status = 401) {
    super(description);
    this.status = status;
    this.headers = { ...headers, 'www-authenticate': `DPoP error="${error}", error_description="${description.replace(/["\\]/g, '')}", algs="${algs.join(' ')}"` };
  }
}
