/**
 * What a client id may be (SPEC §5.1), the one definition used by the service,
 * the admin screen, the endpoints and the CLI. The database holds the same
 * check (migration 010), so only ids that could be registered ever reach it:
 * a NUL byte would make PostgreSQL fail.
 */
import { Type } from '@sinclair/typebox';

const CLIENT_ID_SOURCE = '^[A-Za-z0-9._-]{1,100}$';

export const CLIENT_ID_PATTERN = new RegExp(CLIENT_ID_SOURCE);

/** A client id in a path: anything else is not routed. */
export const ClientIdParams = Type.Object({ clientId: Type.String({ pattern: CLIENT_ID_SOURCE }) });
