/**
 * What the soak's writers were told: every write the server acknowledged with
 * 2xx, with the values it must hold, and the writes whose answer never came
 * (the server was killed first) — those may or may not have happened, and
 * either is correct as long as nothing is half done.
 */

export const KINDS = ['sessions', 'contents', 'baskets', 'basket edits', 'codes', 'exchanges', 'refreshes', 'uploads'] as const;
export type Kind = typeof KINDS[number];

export interface Tally {
  /** Answered 2xx: must be in the database afterwards. */
  acked: number;
  /** No answer (connection closed by the kill, or a timeout): may or may not have happened. */
  unanswered: number;
  /** Answered 4xx/5xx, by status: must have changed nothing. */
  refused: Record<string, number>;
}

export interface BasketValues { description: string; weightInGrams: number }

export interface BasketRecord {
  id: number;
  /** The values of the last acknowledged write (creation or edit). */
  acked: BasketValues;
  /** An edit sent after it whose answer never came: the row may hold these instead. */
  unanswered: BasketValues | undefined;
}

export interface Chain {
  /** The code whose exchange started the chain. */
  code: string;
  grantId: number;
  /** The refresh token of the last acknowledged answer (the exchange's, or the last refresh's). */
  token: string;
  accessToken: string;
  /** Acknowledged rotations since the exchange. */
  rotations: number;
  /** A refresh with `token` was sent and never answered: it may have rotated `token` (once, never more). */
  unanswered: boolean;
  /** Why the chain is not refreshed any more (refused, or revoked as RFC 9700 demands). */
  ended?: string;
}

export class Ledger {
  readonly tallies = Object.fromEntries(KINDS.map((k) => [k, { acked: 0, unanswered: 0, refused: {} }])) as Record<Kind, Tally>;
  readonly sessions: Array<{ email: string; userId: number; cookie: string }> = [];
  readonly contents: Array<{ id: number; name: string; title: string; body: string }> = [];
  readonly baskets = new Map<number, BasketRecord>();
  /** Codes handed out by the authorization endpoint (303 with a code), exchanged or not. */
  readonly codes: string[] = [];
  /** Acknowledged code exchanges; every one starts a refresh chain. */
  readonly chains: Chain[] = [];
  /** Chains whose last acknowledged token was refused during the load: failures. */
  readonly brokenChains: string[] = [];
  readonly uploads: Array<{ uuid: string; sha256: string; filesize: number; filename: string }> = [];

  acked(kind: Kind): void {
    this.tallies[kind].acked += 1;
  }

  unanswered(kind: Kind): void {
    this.tallies[kind].unanswered += 1;
  }

  refused(kind: Kind, status: number): void {
    const r = this.tallies[kind].refused;
    r[status] = (r[status] ?? 0) + 1;
  }

  /** Answers with a status of 500 or above other than 503 (a busy upload queue): server faults, never expected. */
  faults(): string[] {
    return KINDS.flatMap((k) => Object.entries(this.tallies[k].refused)
      .filter(([status]) => Number(status) >= 500 && Number(status) !== 503).map(([status, n]) => `${k}: ${n} × ${status}`));
  }
}
