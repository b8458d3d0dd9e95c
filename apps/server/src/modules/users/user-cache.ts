/**
 * The member check's read model: users rows kept in memory so that an authenticated request needs
 * no database round trip. Kept exact by events, not by time: every writer of a users row emits
 * `user.changed` after its commit and the row is dropped at once, so a ban, a deletion, a role or
 * password change applies to the very next request. The bound (least recently used out) keeps
 * memory flat; the age limit is only a safety net for a change made outside the application
 * (an operator's SQL), never what correctness relies on. With several instances, an instance back
 * on Redis after an outage forgets every row (users.module.ts): the facts it missed meanwhile
 * cannot drop them.
 */
import { LRUCache } from 'lru-cache';
import type { Db } from '../../db/client.js';
import { findUserById, type UserRow } from '../../kernel/users.repo.js';

export const USER_CACHE_MAX_ROWS = 10_000;
/** A row read longer ago than this is read again (safety net only, see above). */
export const USER_CACHE_MAX_AGE_MS = 5 * 60_000;

interface Cached {
  row: UserRow;
  readAt: number;
}

export class UserCache {
  readonly #rows: LRUCache<number, Cached>;
  /**
   * Bumped by every drop. A read that started before a drop may have seen the old row: it is
   * answered but not kept (otherwise a ban committed during the read would be forgotten).
   */
  #generation = 0;
  /** Lookups answered from memory and from the database (tests and diagnostics). */
  readonly stats = { hits: 0, misses: 0 };

  readonly db: Db;
  readonly options: { maxRows?: number; maxAgeMs?: number };

  constructor(deps: { db: Db; maxRows?: number; maxAgeMs?: number }) {
    this.db = deps.db;
    this.options = { maxRows: deps.maxRows, maxAgeMs: deps.maxAgeMs };
    this.#rows = new LRUCache({ max: deps.maxRows ?? USER_CACHE_MAX_ROWS });
  }

  /** The live (not deleted) member, from memory when possible. */
  async find(userId: number): Promise<UserRow | undefined> {
    const cached = this.#rows.get(userId);
    if (cached && Date.now() - cached.readAt < (this.options.maxAgeMs ?? USER_CACHE_MAX_AGE_MS)) {
      this.stats.hits += 1;
      return cached.row;
    }
    this.stats.misses += 1;
    const generation = this.#generation;
    const readAt = Date.now();
    const row = await findUserById(this.db, userId);
    // Shared by every request that reads it: frozen so no route can change it for the others.
    if (row && generation === this.#generation) this.#rows.set(userId, { row: Object.freeze(row), readAt });
    return row;
  }

  drop(userId: number): void {
    this.#generation += 1;
    this.#rows.delete(userId);
  }

  /** Forgets every row (after start-up writes that emit nothing: seeding, migrations). */
  clear(): void {
    this.#generation += 1;
    this.#rows.clear();
  }

  get size(): number {
    return this.#rows.size;
  }
}
