/**
 * The grants the token endpoint serves, by `grant_type` (RFC 6749 §4.1.3,
 * §6; RFC 8628 §3.4). A new grant is one module exporting `grantType`, `parameters` and
 * `handle`, listed here.
 */
import * as authorizationCode from './authorization-code.ts';
import * as deviceCode from './device-code.ts';
import type { GrantModule } from './grant-type.ts';
import * as refreshToken from './refresh-token.ts';

/** Everything any grant's handler needs. */
export type GrantContext = authorizationCode.CodeGrantContext & refreshToken.RefreshGrantContext & deviceCode.DeviceCodeGrantContext;

const GRANT_MODULES: readonly GrantModule<GrantContext>[] = [authorizationCode, refreshToken, deviceCode];

export const GRANTS: ReadonlyMap<string, GrantModule<GrantContext>> = new Map(GRANT_MODULES.map((grant) => [grant.grantType, grant]));

/** Every parameter some grant reads: each may be given at most once, whichever grant is asked for (RFC 6749 §3.2). */
export const GRANT_PARAMETERS: readonly string[] = [...new Set(GRANT_MODULES.flatMap((grant) => grant.parameters))];
