/**
 * What a grant (RFC 6749 §4.1.3, §6) is to the token endpoint: its
 * `grant_type`, the parameters it reads (the endpoint passes it no others) and
 * its handler. Each grant declares the storage it needs in its own file.
 */
import type { Clock } from '../../clock.ts';
import type { ClientRow } from '../clients/clients.repository.ts';
import type { IssueInput, TokenResponse } from '../tokens/token-response.ts';

/** What every grant's handler gets, besides its own store. */
export interface GrantBase {
  readonly clock: Clock;
  /** Signs (and encrypts) the token response. */
  issue(input: IssueInput): Promise<TokenResponse>;
}

export type GrantParameters<P extends string> = Record<P, string | undefined>;

/** What the token request carries besides its parameters. */
export interface TokenRequestProof {
  /** RFC 9449: the JWK thumbprint of the key of the request's valid DPoP proof; undefined without one. */
  readonly dpopJkt: string | undefined;
}

export interface GrantModule<Context, P extends string = string> {
  readonly grantType: string;
  readonly parameters: readonly P[];
  /** Runs on an authenticated client; throws an {@link OAuthError} to refuse. */
  handle(ctx: Context, client: ClientRow, params: GrantParameters<P>, proof: TokenRequestProof): Promise<TokenResponse>;
}
