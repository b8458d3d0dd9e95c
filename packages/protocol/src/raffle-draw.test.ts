/**
 * The shared check of a published draw (issue 41 point 3), with Web Crypto as the raffle page runs
 * it: the known answers of docs/raffle-fairness.md (computed once with Python, independently of
 * this code), and every kind of tampering failing the check that catches it — and only that one.
 */
import { describe, expect, it } from 'vitest';
import {
  canonicalEntriesText,
  drawWinnersWith,
  hexOf,
  keyInput,
  type RaffleVerification,
  seedBytes,
  uniformOfDigest,
  verifyRaffleRecord,
} from './raffle-draw.js';
import type { RaffleRecord } from './raffles.js';

const sha256 = async (data: Uint8Array) =>
  new Uint8Array(await crypto.subtle.digest('SHA-256', data as Uint8Array<ArrayBuffer>));

const SEED = '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f';
const OTHER_SEED = `1${SEED.slice(1)}`;
const COMMITMENT = '630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd';
const OTHER_COMMITMENT = hexOf(await sha256(seedBytes(OTHER_SEED)));
const ENTRIES_HASH = '5383d6d8bb8039ce4ea0560a6a4fbe6a2a120f45493fe5ad6ea0bf5535d2b087';
const entry = (platform: 'twitch' | 'youtube' | 'discord', platformUserId: string, weight: number) => ({
  platform,
  platformUserId,
  displayName: platformUserId,
  weight,
});
// Published in the canonical order, as the record is.
const ENTRIES = [
  entry('discord', 'Zoë', 100),
  entry('discord', 'carol', 1),
  entry('twitch', 'alice', 150),
  entry('twitch', 'dave', 300),
  entry('youtube', 'UCbob', 100),
];
const winner = (platform: 'twitch' | 'youtube' | 'discord', id: string) => ({
  platform,
  platformUserId: id,
  displayName: id,
});

/** The raffle of docs/raffle-fairness.md's example, as GET /api/raffles/{id}/record publishes it. */
const RECORD: RaffleRecord = {
  id: 12,
  status: 'drawn',
  racers: 2,
  commitment: COMMITMENT,
  entriesHash: ENTRIES_HASH,
  seed: SEED,
  entryCount: ENTRIES.length,
  totalWeight: 651,
  entriesByPlatform: { twitch: 2, youtube: 1, discord: 2 },
  winners: [winner('twitch', 'dave'), winner('twitch', 'alice')],
  openedAt: '2026-12-01T20:00:00.000Z',
  drawnAt: '2026-12-01T20:10:00.000Z',
  entries: ENTRIES,
};

const failing = async (record: unknown) =>
  (await verifyRaffleRecord(record)).checks.filter((c) => !c.ok).map((c) => c.name);

describe('the procedure with Web Crypto', () => {
  it('gives the known answers: commitment, canonical text, u and winners', async () => {
    expect(hexOf(await sha256(seedBytes(SEED)))).toBe(COMMITMENT);
    expect(canonicalEntriesText([...ENTRIES].reverse())).toBe(
      'discord:Zoë:100\ndiscord:carol:1\ntwitch:alice:150\ntwitch:dave:300\nyoutube:UCbob:100',
    );
    // First 6 bytes of SHA-256(seed ‖ "twitch:dave") from the Python run: cca87c14596d.
    const digest = await sha256(keyInput(seedBytes(SEED), { platform: 'twitch', platformUserId: 'dave' }));
    expect(hexOf(digest.slice(0, 6))).toBe('cca87c14596d');
    expect(uniformOfDigest(digest)).toBe((0xcca87c14596d + 1) / (2 ** 48 + 1));
    const ids = (await drawWinnersWith(sha256, SEED, ENTRIES, 20)).map((e) => e.platformUserId);
    expect(ids).toEqual(['dave', 'alice', 'UCbob', 'Zoë', 'carol']);
  });

  it('refuses a malformed seed and a weight under 1', async () => {
    expect(() => seedBytes(SEED.toUpperCase())).toThrow();
    expect(() => seedBytes(SEED.slice(2))).toThrow();
    await expect(drawWinnersWith(sha256, SEED, [entry('twitch', 'x', 0)], 1)).rejects.toThrow();
    await expect(drawWinnersWith(sha256, SEED, [entry('twitch', 'x', 1.5)], 1)).rejects.toThrow();
  });
});

describe('verifyRaffleRecord', () => {
  it('passes every check of an untouched record, in the order the page shows them', async () => {
    const result: RaffleVerification = await verifyRaffleRecord(structuredClone(RECORD));
    expect(result.ok).toBe(true);
    expect(result.checks.map((c) => [c.name, c.ok])).toEqual([
      ['format', true],
      ['commitment', true],
      ['entriesHash', true],
      ['winners', true],
    ]);
    expect(result.checks[3]?.computed).toBe('twitch:dave, twitch:alice');
  });

  it('a tampered seed fails the commitment (and the winners it no longer gives)', async () => {
    expect(await failing({ ...RECORD, seed: OTHER_SEED })).toEqual(['commitment', 'winners']);
  });

  it('a seed swapped with its commitment (picked after the fact) still fails the winners', async () => {
    expect(await failing({ ...RECORD, seed: OTHER_SEED, commitment: OTHER_COMMITMENT })).toEqual(['winners']);
  });

  it('a changed commitment fails the commitment only', async () => {
    expect(await failing({ ...RECORD, commitment: OTHER_COMMITMENT })).toEqual(['commitment']);
  });

  it('a changed, added or removed entry fails the entries hash', async () => {
    const renamed = ENTRIES.map((e) =>
      e.platformUserId === 'UCbob' ? { ...e, platformUserId: 'UCeve' } : e,
    );
    expect(await failing({ ...RECORD, entries: renamed })).toEqual(['entriesHash']);
    const added = [...ENTRIES, entry('youtube', 'UCzed', 1)];
    expect(await failing({ ...RECORD, entries: added, entryCount: added.length })).toEqual(['entriesHash']);
    const shorter = ENTRIES.slice(1);
    expect(await failing({ ...RECORD, entries: shorter, entryCount: shorter.length })).toEqual([
      'entriesHash',
    ]);
  });

  it('a changed weight fails the entries hash (and the winners when it changes them)', async () => {
    const lighter = ENTRIES.map((e) => (e.platformUserId === 'UCbob' ? { ...e, weight: 99 } : e));
    expect(await failing({ ...RECORD, entries: lighter })).toEqual(['entriesHash']);
    const heavier = ENTRIES.map((e) => (e.platformUserId === 'carol' ? { ...e, weight: 100_000 } : e));
    expect(await failing({ ...RECORD, entries: heavier })).toEqual(['entriesHash', 'winners']);
  });

  it('changed, reordered, extra or missing winners fail the winners only', async () => {
    const { winners } = RECORD;
    expect(await failing({ ...RECORD, winners: [...winners].reverse() })).toEqual(['winners']);
    expect(await failing({ ...RECORD, winners: [winners[0], winner('youtube', 'UCbob')] })).toEqual([
      'winners',
    ]);
    expect(await failing({ ...RECORD, winners: [...winners, winner('youtube', 'UCbob')] })).toEqual([
      'winners',
    ]);
    expect(await failing({ ...RECORD, winners: winners.slice(1) })).toEqual(['winners']);
    expect(await failing({ ...RECORD, racers: 3 })).toEqual(['winners']);
  });

  it('a display name is not part of the draw', async () => {
    const relabelled = ENTRIES.map((e) => ({ ...e, displayName: 'someone' }));
    expect(await failing({ ...RECORD, entries: relabelled })).toEqual([]);
  });

  it('refuses, as a format failure, what is not a whole drawn record', async () => {
    // A record cut short: its entry count says so.
    expect(await failing({ ...RECORD, entries: ENTRIES.slice(1) })).toEqual(['format']);
    // The summary (no entries), an open raffle, a malformed seed, anything else.
    const { entries: _entries, ...summary } = RECORD;
    expect(await failing(summary)).toEqual(['format']);
    const { seed: _seed, entriesHash: _hash, ...open } = RECORD;
    expect(await failing({ ...open, status: 'open' })).toEqual(['format']);
    expect(await failing({ ...RECORD, seed: 'zz' })).toEqual(['format']);
    expect(await failing({ hello: 'world' })).toEqual(['format']);
    expect(await failing(null)).toEqual(['format']);
    // A record saved before the entry count was published is whole: it is read.
    const { entryCount: _count, ...older } = RECORD;
    expect((await verifyRaffleRecord(older)).ok).toBe(true);
  });
});
