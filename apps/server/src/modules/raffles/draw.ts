/**
 * The raffle draw on the server (docs/raffle-fairness.md): the shared procedure of
 * `@telerace/protocol`'s raffle-draw.ts with Node's synchronous SHA-256, because a draw keys tens
 * of thousands of entries inside a transaction. The raffle page and `npm run verify-raffle` check a
 * published draw with the same procedure and Web Crypto (`verifyRaffleRecord`); draw.test.ts holds
 * the two together.
 */
import { createHash } from 'node:crypto';
import {
  byKey,
  canonicalEntriesText,
  canonicalOrder,
  type DrawEntry,
  type KeyedEntry,
  keyInput,
  keyOfDigest,
  seedBytes,
  uniformOfDigest,
} from '@telerace/protocol';

const sha256 = (data: Uint8Array | string): Buffer => createHash('sha256').update(data).digest();

export function commitmentOf(seedHex: string): string {
  return sha256(seedBytes(seedHex)).toString('hex');
}

export function entriesHashOf(entries: readonly DrawEntry[]): string {
  return sha256(canonicalEntriesText(entries)).toString('hex');
}

/** u in (0, 1) from the seed and the identity. */
export function uniformOf(seed: Uint8Array, entry: Pick<DrawEntry, 'platform' | 'platformUserId'>): number {
  return uniformOfDigest(sha256(keyInput(seed, entry)));
}

export function keyOf(seed: Uint8Array, entry: DrawEntry): number {
  return keyOfDigest(sha256(keyInput(seed, entry)), entry);
}

/** Every entry with its key, largest key first (equal keys keep the canonical order). */
function rankEntries<E extends DrawEntry>(seedHex: string, entries: readonly E[]): KeyedEntry<E>[] {
  const seed = seedBytes(seedHex);
  return byKey(canonicalOrder(entries).map((entry) => ({ entry, key: keyOf(seed, entry) })));
}

/** The winners, first drawn first; all the entries (in key order) when they are fewer than `racers`. */
export function drawWinners<E extends DrawEntry>(
  seedHex: string,
  entries: readonly E[],
  racers: number,
): E[] {
  return rankEntries(seedHex, entries)
    .slice(0, racers)
    .map((keyed) => keyed.entry);
}
