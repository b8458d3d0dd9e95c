/** The draw list's rules (draw-list.ts): one entry per account, merged identities, banned dropped. */
import { RAFFLE_BASE_WEIGHT } from '@telerace/protocol';
import { describe, expect, it } from 'vitest';
import { drawList, type EnteredIdentity } from './draw-list.js';

const at = (ms: number) => new Date(Date.UTC(2026, 10, 27, 12, 0, 0) + ms);

function entered(
  platform: string,
  platformUserId: string,
  ms: number,
  account: { userId: number; isBanned?: boolean } | null = null,
): EnteredIdentity {
  return {
    platform,
    platformUserId,
    displayName: `${platform}-${platformUserId}`,
    enteredAt: at(ms),
    account: account && { userId: account.userId, isBanned: account.isBanned ?? false },
  };
}

const names = (list: { entry: EnteredIdentity }[]) =>
  list.map((e) => `${e.entry.platform}:${e.entry.platformUserId}`);

describe('drawList', () => {
  it('an identity without an account is an entry of its own with the base weight', () => {
    const list = drawList([entered('twitch', 'a', 0), entered('twitch', 'b', 1)], () => 400);
    expect(list.entries.map((e) => [e.entry.platformUserId, e.weight, e.userId])).toEqual([
      ['a', RAFFLE_BASE_WEIGHT, null],
      ['b', RAFFLE_BASE_WEIGHT, null],
    ]);
    expect(list.merged).toEqual([]);
    expect(list.dropped).toEqual([]);
  });

  it("an account's identities on three platforms are one entry, its first, with the account's weight", () => {
    const account = { userId: 7 };
    const list = drawList(
      [
        entered('discord', 'd7', 20, account),
        entered('twitch', 't7', 10, account),
        entered('youtube', 'y7', 30, account),
        entered('twitch', 'other', 15),
      ],
      (userId) => (userId === 7 ? 175 : undefined),
    );
    expect(list.entries.map((e) => [e.entry.platformUserId, e.weight, e.userId])).toEqual([
      ['t7', 175, 7],
      ['other', RAFFLE_BASE_WEIGHT, null],
    ]);
    expect(list.merged.map((m) => [m.entry.platformUserId, m.into.platformUserId])).toEqual([
      ['d7', 't7'],
      ['y7', 't7'],
    ]);
    // The weight is counted once: 175 + 100, not 3 × 175 + 100.
    expect(list.entries.reduce((sum, e) => sum + e.weight, 0)).toBe(275);
  });

  it('identities entered in the same millisecond: the first in the canonical byte order stands for the account', () => {
    const account = { userId: 3 };
    const list = drawList(
      [
        entered('twitch', 'z', 5, account),
        entered('discord', 'q', 5, account),
        entered('twitch', 'Z', 5, account),
      ],
      () => 120,
    );
    // "discord" < "twitch"; among equals, bytes: "Z" (0x5A) < "z" (0x7A).
    expect(names(list.entries)).toEqual(['discord:q']);
    expect(list.merged.map((m) => m.entry.platformUserId)).toEqual(['Z', 'z']);
  });

  it("every identity of a banned account is dropped, and the account's others are not drawn", () => {
    const list = drawList(
      [
        entered('twitch', 'b1', 0, { userId: 9, isBanned: true }),
        entered('discord', 'b2', 1, { userId: 9, isBanned: true }),
      ],
      () => 300,
    );
    expect(list.entries).toEqual([]);
    expect(list.dropped.map((e) => e.platformUserId)).toEqual(['b1', 'b2']);
  });

  it('a weight is at least 1, and the base weight when the total is unknown', () => {
    const list = drawList(
      [entered('twitch', 'zero', 0, { userId: 1 }), entered('twitch', 'unknown', 1, { userId: 2 })],
      (userId) => (userId === 1 ? 0 : undefined),
    );
    expect(list.entries.map((e) => e.weight)).toEqual([1, RAFFLE_BASE_WEIGHT]);
  });

  it('never lists an account twice nor loses an identity, whatever the order and links (random lists)', () => {
    let seed = 42;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    const platforms = ['twitch', 'youtube', 'discord'];
    for (let round = 0; round < 200; round++) {
      const identities: EnteredIdentity[] = [];
      const size = 1 + random(30);
      for (let i = 0; i < size; i++) {
        const linked = random(3) > 0;
        const userId = 1 + random(6);
        identities.push(
          entered(
            platforms[random(3)] as string,
            `u${i}`,
            random(5),
            linked ? { userId, isBanned: userId === 6 } : null,
          ),
        );
      }
      const list = drawList(identities, (userId) => userId * 10);
      const accounts = list.entries.flatMap((e) => (e.userId === null ? [] : [e.userId]));
      expect(new Set(accounts).size).toBe(accounts.length);
      expect(list.entries.length + list.merged.length + list.dropped.length).toBe(identities.length);
      for (const { entry, into } of list.merged) {
        expect(entry.account?.userId).toBe(into.account?.userId);
        expect(list.entries.some((e) => e.entry === into)).toBe(true);
      }
      expect(list.dropped.every((e) => e.account?.isBanned)).toBe(true);
      const expectedAccounts = new Set(
        identities.filter((e) => e.account && !e.account.isBanned).map((e) => e.account?.userId),
      );
      expect(new Set(accounts)).toEqual(expectedAccounts);
    }
  });
});
