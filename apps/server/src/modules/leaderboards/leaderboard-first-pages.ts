/**
 * The first page of the all-time leaderboard (= season 0) at each page size, held in memory: the
 * Leaderboards page opens on it, for every visitor. The database stays the truth; a page is
 * dropped when a race finishes (`race.finished`, emitted after the results commit) and when a
 * member shown on it changes (`user.changed`: name, avatar, deletion's scrub). A read that started
 * before a drop is answered but not kept (a generation counter), so a page read while a race's
 * results were committing is never served after its `race.finished`.
 */
import type { LeaderboardResponse } from '@telerace/protocol';

export class LeaderboardFirstPages {
  readonly #pages = new Map<number, LeaderboardResponse>();
  #generation = 0;
  /** Pages answered from memory and read from the database (tests and diagnostics). */
  readonly stats = { answered: 0, loaded: 0 };

  /** The first page of `limit` rows, from memory or read by `load` (and kept). */
  async get(limit: number, load: () => Promise<LeaderboardResponse>): Promise<LeaderboardResponse> {
    const kept = this.#pages.get(limit);
    if (kept) {
      this.stats.answered += 1;
      return kept;
    }
    const generation = this.#generation;
    const page = await load();
    this.stats.loaded += 1;
    if (generation === this.#generation) this.#pages.set(limit, page);
    return page;
  }

  /** A race finished: every page may change (ranks, counts, totals). */
  clear(): void {
    this.#generation += 1;
    this.#pages.clear();
  }

  /** A member changed: drop the pages that show them (sign-ins change nobody's row on the board). */
  forgetMember(userId: number): void {
    // Any read under way may hold the old row: it is not kept.
    this.#generation += 1;
    for (const [limit, page] of this.#pages) {
      if (page.data.some((row) => row.user_id === userId)) this.#pages.delete(limit);
    }
  }
}
