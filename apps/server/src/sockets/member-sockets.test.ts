/**
 * The member-sockets registry on its own: which sockets a revocation closes, and the admission
 * window — a revocation made while a socket is being admitted closes it as it registers, one made
 * before its admission began does not, and nothing is remembered once no socket is being
 * admitted. The sockets' own tests (revocation-during-admission.test.ts, events, control, video)
 * run the same through real upgrades.
 */
import { SOCKET_CLOSE_CODES } from '@telerace/protocol';
import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { type MemberSocket, MemberSockets, type Revocation } from './member-sockets.js';

/** An upgrade request: the registry only uses it as the admission's identity. */
const upgrade = () => ({}) as FastifyRequest;

class FakeSocket implements MemberSocket {
  readonly revoked: Revocation[] = [];
  constructor(
    readonly userId: number,
    public loginSessionId: string | null = null,
  ) {}
  revoke(revocation: Revocation): void {
    this.revoked.push(revocation);
  }
}

const banned: Revocation = { code: SOCKET_CLOSE_CODES.forceDisconnect, reason: 'banned' };
const loggedOut: Revocation = { code: SOCKET_CLOSE_CODES.sessionRevoked, reason: 'session_revoked' };

/** A registry with one kind, and a way to open a socket through its admission. */
function registry() {
  const members = new MemberSockets();
  const events = members.kind<FakeSocket>('event');
  const video = members.kind<FakeSocket>('video');
  const admitted = (kind: typeof events, socket: FakeSocket) => {
    const request = upgrade();
    members.admitting(request);
    return kind.add(request, socket);
  };
  return { members, events, video, admitted };
}

describe('MemberSockets', () => {
  it('closes all of a member’s sockets, or those of one login session, and only theirs', () => {
    const { members, events, video, admitted } = registry();
    const [a, b, watcher, other] = [
      new FakeSocket(1, 'session-a'),
      new FakeSocket(1, 'session-b'),
      new FakeSocket(1, 'session-a'),
      new FakeSocket(2, 'session-a'),
    ];
    const removeB = admitted(events, b);
    admitted(events, a);
    admitted(video, watcher);
    admitted(events, other);
    expect(events.count(1)).toBe(2);

    members.revokeSession(1, 'session-a');
    expect(a.revoked).toEqual([loggedOut]);
    expect(watcher.revoked).toEqual([loggedOut]);
    expect(b.revoked).toEqual([]);
    // Another member's socket is not theirs to close, whatever its session id claims.
    expect(other.revoked).toEqual([]);
    // Out of the registry at once (a revoked socket's close takes a round trip).
    expect(events.count(1)).toBe(1);
    expect(video.count(1)).toBe(0);

    removeB();
    expect(events.count(1)).toBe(0);
    members.revokeMember(1, banned);
    expect(b.revoked).toEqual([]);
    expect([...events.all()]).toEqual([other]);
  });

  it('follows the session a socket lives on now (its token renewed with another session)', () => {
    const { members, events, admitted } = registry();
    const socket = new FakeSocket(1, 'first');
    admitted(events, socket);
    socket.loginSessionId = 'second';
    members.revokeSession(1, 'first');
    expect(socket.revoked).toEqual([]);
    members.revokeSession(1, 'second');
    expect(socket.revoked).toEqual([loggedOut]);
  });

  it('closes only the kinds asked (a demotion: the video sockets)', () => {
    const { members, events, video, admitted } = registry();
    const [page, player] = [new FakeSocket(1), new FakeSocket(1)];
    admitted(events, page);
    admitted(video, player);
    const demoted: Revocation = { code: SOCKET_CLOSE_CODES.roleChanged, reason: 'role_changed' };
    members.revokeMember(1, demoted, new Set(['video']));
    expect(player.revoked).toEqual([demoted]);
    expect(page.revoked).toEqual([]);
  });

  it('closes a socket as it registers when a revocation concerning it came during its admission', () => {
    const { members, events } = registry();
    const [whole, session, unrelated] = [upgrade(), upgrade(), upgrade()];
    for (const request of [whole, session, unrelated]) members.admitting(request);
    members.revokeMember(1, banned);
    members.revokeSession(3, 'gone');

    const late = new FakeSocket(1, 'any');
    const remove = events.add(whole, late);
    expect(late.revoked).toEqual([banned]);
    expect(events.count(1)).toBe(0);
    remove();
    const lateSession = new FakeSocket(3, 'gone');
    events.add(session, lateSession);
    expect(lateSession.revoked).toEqual([loggedOut]);
    const otherSession = new FakeSocket(3, 'kept');
    events.add(unrelated, otherSession);
    expect(otherSession.revoked).toEqual([]);
    expect(events.count(3)).toBe(1);
    expect(members.beingAdmitted).toBe(0);
  });

  it('leaves open a socket whose admission began after the revocation, even in the same millisecond', () => {
    const { members, events } = registry();
    const earlier = upgrade();
    members.admitting(earlier);
    members.revokeMember(1, banned);
    // A fresh sign-in right after: its admission starts after the revocation.
    const fresh = upgrade();
    members.admitting(fresh);
    const socket = new FakeSocket(1);
    events.add(fresh, socket);
    expect(socket.revoked).toEqual([]);
    // The earlier admission still hears of it.
    const slow = new FakeSocket(1);
    events.add(earlier, slow);
    expect(slow.revoked).toEqual([banned]);
  });

  it('remembers nothing while no socket is being admitted, and forgets once the admissions end', () => {
    const { members, events } = registry();
    members.revokeMember(1, banned);
    expect(members.remembered).toBe(0);

    const [first, second] = [upgrade(), upgrade()];
    members.admitting(first);
    members.revokeMember(1, banned);
    members.admitting(second);
    members.revokeMember(2, banned);
    expect(members.remembered).toBe(2);
    // The first admission ends: what only it could have missed goes.
    events.add(first, new FakeSocket(3));
    expect(members.remembered).toBe(1);
    // A refused admission ends its window too.
    members.abandoned(second);
    expect(members.remembered).toBe(0);
    expect(members.beingAdmitted).toBe(0);
  });

  it('refuses a socket registered outside an admission, and a kind taken twice', () => {
    const { members, events } = registry();
    expect(() => events.add(upgrade(), new FakeSocket(1))).toThrow(/admission window/);
    expect(() => members.kind('event')).toThrow(/already/);
  });
});
