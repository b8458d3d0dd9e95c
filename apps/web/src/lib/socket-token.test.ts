import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { tokenFor } from '../test/fake-token';
import { SocketTokenLease } from './socket-token';

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(new Date('2026-01-01T10:00:00Z'));
});
afterEach(() => vi.useRealTimers());

/** A lease whose socket is open unless `open` says otherwise; sent `auth`s and renewals recorded. */
function lease(current: { token: string | null } = { token: null }) {
  const sent: string[] = [];
  const renewed: string[] = [];
  const state = { open: true };
  const renewToken = vi.fn<() => Promise<string>>();
  const subject = new SocketTokenLease({
    now: () => Date.now(),
    getAccessToken: () => current.token,
    renewToken,
    sendAuth: (token) => {
      if (state.open) sent.push(token);
      return state.open;
    },
    onRenewed: (token) => renewed.push(token),
  });
  return { lease: subject, sent, renewed, renewToken, state, current };
}

describe('SocketTokenLease', () => {
  it('hands over only a newer token of the same member, and only while the socket can send', () => {
    const { lease: subject, sent, state } = lease();
    const first = tokenFor(7);
    subject.connecting(first);
    subject.offer(first);
    subject.offer(tokenFor(8));
    state.open = false;
    const second = tokenFor(7, 900, Date.now() + 1_000);
    subject.offer(second);
    expect(subject.current).toBe(first);
    state.open = true;
    subject.offer(second);
    expect(sent).toEqual([second]);
    expect(subject.current).toBe(second);
  });

  it('calls for a renewal a quarter of a short lifetime before expiry, only once opened, not after close', async () => {
    const { lease: subject, renewed, current } = lease();
    subject.connecting(tokenFor(7, 20));
    await vi.advanceTimersByTimeAsync(20_000);
    expect(renewed).toEqual([]);
    subject.connecting(tokenFor(7, 20));
    subject.opened();
    current.token = tokenFor(7, 20, Date.now() + 1_000);
    await vi.advanceTimersByTimeAsync(14_999);
    expect(renewed).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(renewed).toEqual([current.token]);
    subject.connecting(tokenFor(7, 20));
    subject.opened();
    subject.closed();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(renewed).toHaveLength(1);
  });

  it('renews with a refresh when the auth client has nothing newer, and survives a failed one', async () => {
    const { lease: subject, renewed, renewToken } = lease();
    const fresh = tokenFor(7, 900, Date.now() + 840_000);
    renewToken.mockRejectedValueOnce(new Error('offline')).mockResolvedValueOnce(fresh);
    subject.connecting(tokenFor(7, 900));
    subject.opened();
    await vi.advanceTimersByTimeAsync(840_000);
    expect(renewed).toEqual([]);
    subject.connecting(tokenFor(7, 900));
    subject.opened();
    await vi.advanceTimersByTimeAsync(840_000);
    expect(renewed).toEqual([fresh]);
  });

  it('calls a token stale when it expired, or when the server refused it and it is the one it refused', () => {
    const { lease: subject } = lease();
    const live = tokenFor(7);
    const expired = tokenFor(7, 10, Date.now() - 20_000);
    expect(subject.isStale(live, false)).toBe(false);
    expect(subject.isStale(null, false)).toBe(false);
    expect(subject.isStale(expired, false)).toBe(true);
    subject.connecting(live);
    subject.closed();
    expect(subject.isStale(live, true)).toBe(true);
    expect(subject.isStale(null, true)).toBe(true);
    expect(subject.isStale(tokenFor(7, 900, Date.now() + 1_000), true)).toBe(false);
  });

  it("gives the auth client's live token if it is not the refused one, else a refresh, else null", async () => {
    const { lease: subject, renewToken, current } = lease();
    const refused = tokenFor(7);
    subject.connecting(refused);
    subject.closed();
    current.token = refused;
    const refreshed = tokenFor(7, 900, Date.now() + 1_000);
    renewToken.mockResolvedValueOnce(refreshed).mockRejectedValueOnce(new Error('signed out'));
    expect(await subject.fresh()).toBe(refreshed);
    expect(await subject.fresh()).toBeNull();
    current.token = tokenFor(7, 900, Date.now() + 2_000);
    expect(await subject.fresh()).toBe(current.token);
    expect(renewToken).toHaveBeenCalledTimes(2);
  });
});
