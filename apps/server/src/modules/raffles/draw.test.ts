/**
 * The draw's procedure (issue 13), pure: known-answer vectors (computed once with Python's hashlib
 * and math.log, independently of this code, and re-derived by hand below), the sampler's
 * distribution (chi-square over 100,000 draws), and the shared check (Web Crypto, as the raffle page
 * and `npm run verify-raffle` run it) against the server's own draws.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  canonicalEntriesText,
  canonicalOrder,
  compareBytes,
  type DrawEntry,
  type RaffleRecord,
  seedBytes,
  verifyRaffleRecord,
} from '@telerace/protocol';
import { describe, expect, it } from 'vitest';
import { commitmentOf, drawWinners, entriesHashOf, keyOf, uniformOf } from './draw.js';
import { presentEntries, presentSummary } from './raffles.presenter.js';
import type { PrizeRow, RaffleRow } from './raffles.repo.js';

const SEED = '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f';
const ENTRIES: DrawEntry[] = [
  { platform: 'twitch', platformUserId: 'alice', weight: 150 },
  { platform: 'youtube', platformUserId: 'UCbob', weight: 100 },
  { platform: 'discord', platformUserId: 'carol', weight: 1 },
  { platform: 'twitch', platformUserId: 'dave', weight: 300 },
  { platform: 'discord', platformUserId: 'Zoë', weight: 100 },
];
const id = (e: DrawEntry) => `${e.platform}:${e.platformUserId}`;

describe('known answers', () => {
  it('commitment, canonical list and entries hash', () => {
    expect(commitmentOf(SEED)).toBe('630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd');
    // Byte order: 'Z' (0x5a) before 'c' (0x63), 'discord' before 'twitch' before 'youtube'.
    expect(canonicalEntriesText(ENTRIES)).toBe(
      'discord:Zoë:100\ndiscord:carol:1\ntwitch:alice:150\ntwitch:dave:300\nyoutube:UCbob:100',
    );
    expect(entriesHashOf(ENTRIES)).toBe('5383d6d8bb8039ce4ea0560a6a4fbe6a2a120f45493fe5ad6ea0bf5535d2b087');
    // The entries' order as given does not matter.
    expect(entriesHashOf([...ENTRIES].reverse())).toBe(entriesHashOf(ENTRIES));
  });

  it('u and keys from the first 6 bytes of SHA-256(seed ‖ identity)', () => {
    // First 6 bytes of each h, written down from the Python run.
    const firstBytes: Record<string, string> = {
      'twitch:dave': 'cca87c14596d',
      'twitch:alice': 'aa44a2c68616',
      'youtube:UCbob': 'a186289bf1f2',
      'discord:Zoë': '03591ef27b1a',
      'discord:carol': 'f49ba7fa448c',
    };
    const seed = seedBytes(SEED);
    for (const entry of ENTRIES) {
      // By hand: the digest of the concatenated bytes, its first 6 bytes as a BigInt.
      const digest = createHash('sha256')
        .update(Buffer.from(SEED, 'hex'))
        .update(`${entry.platform}:${entry.platformUserId}`, 'utf8')
        .digest('hex');
      expect(digest.slice(0, 12)).toBe(firstBytes[id(entry)]);
      const u = (Number(BigInt(`0x${digest.slice(0, 12)}`)) + 1) / (2 ** 48 + 1);
      expect(uniformOf(seed, entry)).toBe(u);
      expect(keyOf(seed, entry)).toBe(Math.log(u) / entry.weight);
    }
    expect(keyOf(seed, ENTRIES[3] as DrawEntry)).toBeCloseTo(-0.000746121503227475, 15);
    expect(keyOf(seed, ENTRIES[2] as DrawEntry)).toBeCloseTo(-0.04552038495082982, 15);
  });

  it('winners: the largest keys, largest first; every entry when fewer than the racers', () => {
    expect(drawWinners(SEED, ENTRIES, 2).map(id)).toEqual(['twitch:dave', 'twitch:alice']);
    expect(drawWinners(SEED, ENTRIES, 1).map(id)).toEqual(['twitch:dave']);
    // carol's u (0.9555) is the largest, but her weight of 1 puts her last.
    expect(drawWinners(SEED, ENTRIES, 20).map(id)).toEqual([
      'twitch:dave',
      'twitch:alice',
      'youtube:UCbob',
      'discord:Zoë',
      'discord:carol',
    ]);
    expect(drawWinners(SEED, [], 2)).toEqual([]);
  });

  it('sorts by UTF-8 bytes, not by JavaScript string order', () => {
    // U+FF5E is EF BD 9E in UTF-8, U+1F600 is F0 9F 98 80; in UTF-16 the emoji (D83D…) sorts first.
    const wide = { platform: 'discord', platformUserId: '\u{FF5E}', weight: 1 };
    const emoji = { platform: 'discord', platformUserId: '\u{1F600}', weight: 1 };
    expect(['\u{FF5E}', '\u{1F600}'].sort()).toEqual(['\u{1F600}', '\u{FF5E}']);
    expect(canonicalOrder([emoji, wide])).toEqual([wide, emoji]);
  });

  it('compares as the UTF-8 bytes do, on random text with every kind of character', () => {
    // ASCII, Latin-1, the BMP around the surrogates, private use, and characters above U+FFFF.
    const pool = [
      'a',
      'Z',
      '0',
      'é',
      'ß',
      '\u{7FF}',
      '\u{800}',
      '\u{D7FF}',
      '\u{E000}',
      '\u{FFFD}',
      '\u{FF5E}',
      '\u{10000}',
      '\u{1F600}',
      '\u{10FFFF}',
    ];
    let seed = 7;
    const pick = () => {
      seed = (seed * 48_271) % 2_147_483_647;
      return pool[seed % pool.length] as string;
    };
    const text = () => Array.from({ length: seed % 5 }, pick).join('');
    const sign = (n: number) => Math.sign(n);
    for (let i = 0; i < 5_000; i++) {
      const a = text();
      pick();
      const b = text();
      expect(sign(compareBytes(a, b)), `${JSON.stringify(a)} vs ${JSON.stringify(b)}`).toBe(
        sign(Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'))),
      );
    }
  });

  it('refuses a malformed seed and a weight under 1', () => {
    expect(() => commitmentOf(SEED.toUpperCase())).toThrow();
    expect(() => commitmentOf(SEED.slice(2))).toThrow();
    expect(() => drawWinners(SEED, [{ platform: 'twitch', platformUserId: 'x', weight: 0 }], 1)).toThrow();
    expect(() => drawWinners(SEED, [{ platform: 'twitch', platformUserId: 'x', weight: 1.5 }], 1)).toThrow();
  });
});

describe('the sampler', () => {
  it('draws one winner in proportion to the weights (chi-square over 100,000 draws, p > 0.01)', () => {
    const weights = [1, 25, 100, 150, 300];
    const entries = weights.map((weight, i) => ({
      platform: 'twitch',
      platformUserId: `viewer${i}`,
      weight,
    }));
    const draws = 100_000;
    const wins = new Map<string, number>();
    for (let i = 0; i < draws; i += 1) {
      // A different seed per draw, fixed so the test always sees the same draws.
      const seed = createHash('sha256').update(`chi-square ${i}`).digest('hex');
      const [winner] = drawWinners(seed, entries, 1);
      wins.set(winner?.platformUserId as string, (wins.get(winner?.platformUserId as string) ?? 0) + 1);
    }
    const total = weights.reduce((a, b) => a + b, 0);
    let chiSquare = 0;
    for (const entry of entries) {
      const expected = (draws * entry.weight) / total;
      const observed = wins.get(entry.platformUserId) ?? 0;
      chiSquare += (observed - expected) ** 2 / expected;
    }
    // 4 degrees of freedom (5 outcomes): the 0.99 quantile of χ²(4) is 13.277.
    expect(chiSquare).toBeLessThan(13.277);
    // And it is a real test: drawing as if every weight were equal would fail it by far.
    let uniformChi = 0;
    for (const entry of entries) {
      const expected = draws / entries.length;
      uniformChi += ((wins.get(entry.platformUserId) ?? 0) - expected) ** 2 / expected;
    }
    expect(uniformChi).toBeGreaterThan(13.277);
  });

  it('never draws anyone twice, and draws everyone when the racers outnumber the entries', () => {
    for (let round = 0; round < 200; round += 1) {
      const seed = randomBytes(32).toString('hex');
      const entries = Array.from({ length: 1 + (round % 12) }, (_, i) => ({
        platform: ['youtube', 'twitch', 'discord'][i % 3] as string,
        platformUserId: `user${i}`,
        weight: 1 + ((i * 37 + round) % 400),
      }));
      const racers = 1 + (round % 15);
      const winners = drawWinners(seed, entries, racers);
      expect(winners).toHaveLength(Math.min(racers, entries.length));
      expect(new Set(winners.map(id)).size).toBe(winners.length);
      if (racers >= entries.length) expect(new Set(winners.map(id))).toEqual(new Set(entries.map(id)));
    }
  });
});

/** A drawn raffle as the server stores it and presents it (GET /api/raffles/{id}). */
function serverRaffle(
  seed: string,
  entries: (DrawEntry & { displayName: string })[],
  racers: number,
): RaffleRecord {
  const now = new Date();
  const raffle: RaffleRow = {
    id: 7,
    status: 'drawn',
    racers,
    seed,
    commitment: commitmentOf(seed),
    entriesHash: entriesHashOf(entries),
    openedAt: now,
    drawnAt: now,
    closedAt: now,
  };
  const prizes: PrizeRow[] = drawWinners(seed, entries, racers).map((winner, index) => ({
    id: index + 1,
    raffleId: 7,
    rank: index + 1,
    platform: winner.platform,
    platformUserId: winner.platformUserId,
    displayName: winner.displayName,
    expiresAt: now,
    claimedAt: null,
    claimedByUserId: null,
    clearedAt: null,
  }));
  const published = presentEntries(entries.map((e) => ({ ...e, platform: e.platform as 'twitch' })));
  return { ...presentSummary(raffle, published, prizes), entries: published };
}

function randomRaffle(): RaffleRecord {
  const platforms = ['youtube', 'twitch', 'discord'];
  const count = 1 + Math.floor(Math.random() * 30);
  const entries = Array.from({ length: count }, (_, i) => ({
    platform: platforms[Math.floor(Math.random() * 3)] as string,
    platformUserId: `${randomBytes(4).toString('hex')}${i}`,
    displayName: `Viewer ${i}`,
    weight: 1 + Math.floor(Math.random() * 500),
  }));
  return serverRaffle(randomBytes(32).toString('hex'), entries, 1 + Math.floor(Math.random() * 6));
}

describe('the shared check (Web Crypto) against the server draw (Node crypto)', () => {
  it('agrees with the server on 100 random raffles', async () => {
    for (let i = 0; i < 100; i += 1) {
      const result = await verifyRaffleRecord(JSON.parse(JSON.stringify(randomRaffle())));
      expect(result.ok, JSON.stringify(result.checks)).toBe(true);
      expect(result.checks.map((c) => c.name)).toEqual(['format', 'commitment', 'entriesHash', 'winners']);
    }
  });
});
