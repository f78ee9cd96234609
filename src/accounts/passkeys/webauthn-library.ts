/**
 * @simplewebauthn/server loads with the first passkey request, not at
 * start-up: with its certificate and ASN.1 dependencies it was the largest
 * module the start loaded (about 0.13 s of CPU), and most starts serve no
 * passkey before the next one.
 */
import { onFirstUse } from '../../on-first-use.ts';

export const loadWebAuthnServer = onFirstUse(() => import('@simplewebauthn/server'));
