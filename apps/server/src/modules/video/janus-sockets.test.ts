/** Which `/janus` sockets a revocation closes, including one admitted while it happened. */
import { describe, expect, it } from 'vitest';
import { JanusSockets } from './janus-sockets.js';

function socket() {
  const closes: [number, string][] = [];
  return { closes, close: (code: number, reason: string) => closes.push([code, reason]) };
}

describe('JanusSockets', () => {
  it('closes all of a member’s sockets, or only those of one session, and counts what stays', () => {
    const sockets = new JanusSockets();
    const [a, b, other] = [socket(), socket(), socket()];
    const removeA = sockets.add(1, 'session-a', Date.now(), a.close);
    sockets.add(1, 'session-b', Date.now(), b.close);
    sockets.add(2, 'session-a', Date.now(), other.close);
    expect(sockets.count(1)).toBe(2);

    sockets.closeSession(1, 'session-a', 4007, 'session ended');
    expect(a.closes).toEqual([[4007, 'session ended']]);
    expect(b.closes).toEqual([]);
    // Another member's socket is not theirs to close, whatever its session id claims.
    expect(other.closes).toEqual([]);

    removeA();
    expect(sockets.count(1)).toBe(1);
    sockets.closeMember(1, 4004, 'sessions revoked');
    expect(b.closes).toEqual([[4004, 'sessions revoked']]);
    expect(other.closes).toEqual([]);
  });

  it('closes at once a socket whose admission began before a revocation it then missed', () => {
    const sockets = new JanusSockets();
    const admittedAt = Date.now() - 5;
    sockets.closeMember(1, 4004, 'sessions revoked');
    sockets.closeSession(3, 'gone', 4007, 'session ended');

    const late = socket();
    sockets.add(1, null, admittedAt, late.close);
    expect(late.closes).toEqual([[4004, 'sessions revoked']]);
    const lateSession = socket();
    sockets.add(3, 'gone', admittedAt, lateSession.close);
    expect(lateSession.closes).toEqual([[4007, 'session ended']]);

    // Admitted after the revocation (a fresh sign-in): it stays open.
    const fresh = socket();
    sockets.add(1, 'new', Date.now() + 1, fresh.close);
    expect(fresh.closes).toEqual([]);
  });
});
