/**
 * Each client's share of one instance's logout-notice sender (docs/security.md
 * "A hanging back-channel receiver delays only its own client"). A client's
 * notices go out in batches of at most {@link NOTICES_PER_CLIENT}; while one is
 * under way, no other notice of that client is claimed here. At most
 * {@link NOTICES_UNDER_WAY} attempts run at once; when they are all taken,
 * clients whose receivers failed lately are claimed after the others, so a
 * crowd of hanging receivers cannot keep a working one waiting beyond the
 * first slot that frees.
 */

/** A client's share: notices of one client under way at once at one instance. */
export const NOTICES_PER_CLIENT = 4;
/** Attempts under way at once at one instance, all clients together (outbound sockets). */
export const NOTICES_UNDER_WAY = 64;
/** A client with a failed attempt this recently is claimed after the others. */
export const FAILED_LATELY_SECONDS = 60;

export class ClientShares {
  /** Attempts under way here. */
  underWay = 0;
  /** Clients with a batch under way here → how many (more than one only when runOnce() and polling overlap). */
  private readonly batches = new Map<string, number>();
  /** Clients → when an attempt of theirs last failed (ms). */
  private readonly failedAt = new Map<string, number>();

  /** Attempts that may still start here. */
  get free(): number {
    return NOTICES_UNDER_WAY - this.underWay;
  }

  /** Clients of which nothing may be claimed now. */
  busyClients(): string[] {
    return [...this.batches.keys()];
  }

  /** Clients to claim after the others; forgets failures older than {@link FAILED_LATELY_SECONDS}. */
  failedLately(now: Date): string[] {
    for (const [clientId, at] of this.failedAt) {
      if (now.getTime() - at >= FAILED_LATELY_SECONDS * 1000) this.failedAt.delete(clientId);
    }
    return [...this.failedAt.keys()];
  }

  begin(clientId: string, attempts: number): void {
    this.batches.set(clientId, (this.batches.get(clientId) ?? 0) + 1);
    this.underWay += attempts;
  }

  end(clientId: string, attempts: number, anyFailed: boolean, now: Date): void {
    const left = (this.batches.get(clientId) ?? 1) - 1;
    if (left > 0) this.batches.set(clientId, left);
    else this.batches.delete(clientId);
    this.underWay -= attempts;
    if (anyFailed) this.failedAt.set(clientId, now.getTime());
    else this.failedAt.delete(clientId);
  }
}
