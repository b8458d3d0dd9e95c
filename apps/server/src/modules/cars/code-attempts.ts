/**
 * Each member's budget of wrong control codes, in memory: a sliding window of their recent
 * failures, across all cars and addresses. The per-IP limit alone lets a member with many
 * addresses keep guessing; this one follows the account. Only wrong codes count, so a driver who
 * types their code right is never held back, and nobody's guesses cost another member anything.
 */

/** Tracked members above which those without a failure in the window are forgotten. */
const SWEEP_THRESHOLD = 10_000;

export class CodeAttemptBudget {
  /** Per member, the times of their failures still in the window (oldest first, at most `limit`). */
  readonly #failures = new Map<number, number[]>();

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Milliseconds until this member may try a code again; 0 while the budget lasts. */
  retryAfterMs(userId: number): number {
    const recent = this.#recent(userId, this.now());
    if (recent.length < this.limit) return 0;
    return (recent[0] ?? 0) + this.windowMs - this.now();
  }

  recordFailure(userId: number): void {
    const now = this.now();
    const recent = this.#recent(userId, now);
    recent.push(now);
    // Only the newest `limit` matter: the oldest of them says when the next try is allowed.
    if (recent.length > this.limit) recent.splice(0, recent.length - this.limit);
    this.#failures.set(userId, recent);
    if (this.#failures.size > SWEEP_THRESHOLD) this.#sweep(now);
  }

  #recent(userId: number, now: number): number[] {
    const times = this.#failures.get(userId) ?? [];
    const live = times.filter((at) => at > now - this.windowMs);
    if (live.length === 0) this.#failures.delete(userId);
    return live;
  }

  #sweep(now: number): void {
    for (const [userId, times] of this.#failures) {
      if (!times.some((at) => at > now - this.windowMs)) this.#failures.delete(userId);
    }
  }
}
