/**
 * The open `/janus` sockets, by member and by the session (refresh-token family) whose access
 * token opened them, so that video stops with the member's rights: a ban, an account deletion, a
 * password change or reset, or "log out everywhere" closes all of a member's video sockets; a
 * log-out (or a replayed refresh token) closes those of that one session.
 *
 * A revocation that lands while a socket is being admitted (its token checked against the
 * database, the upgrade not yet done) is remembered for a short while, so that socket is closed
 * as soon as it opens instead of slipping through.
 */

/** How to close one socket (the proxy closes the browser's side and drops Janus's). */
export type CloseSocket = (code: number, reason: string) => void;

interface Entry {
  sessionId: string | null;
  close: CloseSocket;
}

interface Revocation {
  at: number;
  code: number;
  reason: string;
}

/** Longer than any upgrade takes; revocations older than this are forgotten. */
const REMEMBER_REVOCATIONS_MS = 60_000;

export class JanusSockets {
  readonly #byMember = new Map<number, Set<Entry>>();
  /** Recent revocations: `m<userId>` for a whole member, `s<sessionId>` for one session. */
  readonly #revoked = new Map<string, Revocation>();

  /** Video sockets the member holds now. */
  count(userId: number): number {
    return this.#byMember.get(userId)?.size ?? 0;
  }

  /**
   * Registers a socket admitted at `admittedAt` (before its token was checked); returns its
   * removal. A revocation since then closes it at once.
   */
  add(userId: number, sessionId: string | null, admittedAt: number, close: CloseSocket): () => void {
    const entry: Entry = { sessionId, close };
    let entries = this.#byMember.get(userId);
    if (!entries) {
      entries = new Set();
      this.#byMember.set(userId, entries);
    }
    entries.add(entry);
    const remove = () => {
      const held = this.#byMember.get(userId);
      held?.delete(entry);
      if (held?.size === 0) this.#byMember.delete(userId);
    };
    const missed = [
      this.#revoked.get(`m${userId}`),
      sessionId === null ? undefined : this.#revoked.get(`s${sessionId}`),
    ]
      .filter(
        (revocation): revocation is Revocation => revocation !== undefined && revocation.at >= admittedAt,
      )
      .at(0);
    if (missed) close(missed.code, missed.reason);
    return remove;
  }

  /** Closes every video socket of the member. */
  closeMember(userId: number, code: number, reason: string): void {
    this.#remember(`m${userId}`, code, reason);
    for (const entry of [...(this.#byMember.get(userId) ?? [])]) entry.close(code, reason);
  }

  /** Closes the member's video sockets opened with that session's access tokens. */
  closeSession(userId: number, sessionId: string, code: number, reason: string): void {
    this.#remember(`s${sessionId}`, code, reason);
    for (const entry of [...(this.#byMember.get(userId) ?? [])])
      if (entry.sessionId === sessionId) entry.close(code, reason);
  }

  #remember(key: string, code: number, reason: string): void {
    const now = Date.now();
    for (const [other, revocation] of this.#revoked)
      if (now - revocation.at > REMEMBER_REVOCATIONS_MS) this.#revoked.delete(other);
    this.#revoked.set(key, { at: now, code, reason });
  }
}
