/**
 * The raffle draw, pure (docs/raffle-fairness.md; issue 13 fixes the procedure so anyone can
 * re-run it). The server draws with these functions and `npm run verify-raffle` checks a published
 * draw with the very same ones, so the two can never drift apart.
 *
 *   commitment  = hex SHA-256 of the 32 seed bytes (published when the raffle opens)
 *   entriesHash = hex SHA-256 of the canonical list: entries sorted by platform, then platform user
 *                 id (byte order), one `platform:platformUserId:weight` line each, joined with `\n`
 *   key(entry)  = ln(u) / weight, with h = SHA-256(seed ‖ `platform:platformUserId`) and
 *                 u = (first 6 bytes of h, big-endian, + 1) / (2^48 + 1), so 0 < u < 1
 *   winners     = the `racers` entries with the largest keys, largest first (Efraimidis–Spirakis
 *                 weighted sampling without replacement); every entry when there are fewer.
 */
import { createHash } from 'node:crypto';

export interface DrawEntry {
  platform: string;
  platformUserId: string;
  /** A whole number ≥ 1: the entry's chance is proportional to it. */
  weight: number;
}

export interface KeyedEntry<E extends DrawEntry> {
  entry: E;
  key: number;
}

const SEED_BYTES = 32;
const SEED_HEX = /^[0-9a-f]{64}$/;
const U_DENOMINATOR = 2 ** 48 + 1;

const sha256 = (data: Buffer | string): Buffer => createHash('sha256').update(data).digest();

/** The seed's bytes from its published form (64 lowercase hex digits); throws on anything else. */
export function seedBytes(seedHex: string): Buffer {
  if (!SEED_HEX.test(seedHex)) throw new Error(`a seed is ${SEED_BYTES * 2} lowercase hex digits`);
  return Buffer.from(seedHex, 'hex');
}

export function commitmentOf(seedHex: string): string {
  return sha256(seedBytes(seedHex)).toString('hex');
}

/** A UTF-16 code unit's rank in code point order: surrogates (D800–DFFF, above U+FFFF) after E000–FFFF. */
const codePointRank = (unit: number) =>
  unit < 0xd800 ? unit : unit >= 0xe000 ? unit - 0x800 : unit + 0x2000;

/**
 * Byte order of the UTF-8 text — which is code point order — compared without encoding either
 * string (a draw sorts tens of thousands of entries). JavaScript's own order (UTF-16 code units)
 * differs only where a character above U+FFFF meets one in U+E000–U+FFFF.
 */
export function compareBytes(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

/** The canonical order of identities: platform, then platform user id, by their UTF-8 bytes. */
export function compareIdentity(
  a: Pick<DrawEntry, 'platform' | 'platformUserId'>,
  b: Pick<DrawEntry, 'platform' | 'platformUserId'>,
): number {
  return compareBytes(a.platform, b.platform) || compareBytes(a.platformUserId, b.platformUserId);
}

export function canonicalOrder<E extends DrawEntry>(entries: readonly E[]): E[] {
  return [...entries].sort(compareIdentity);
}

export function canonicalEntriesText(entries: readonly DrawEntry[]): string {
  return canonicalOrder(entries)
    .map((e) => `${e.platform}:${e.platformUserId}:${e.weight}`)
    .join('\n');
}

export function entriesHashOf(entries: readonly DrawEntry[]): string {
  return sha256(canonicalEntriesText(entries)).toString('hex');
}

/** u in (0, 1) from the seed and the identity (never 0, so ln(u) is finite; never 1). */
export function uniformOf(seed: Buffer, entry: Pick<DrawEntry, 'platform' | 'platformUserId'>): number {
  const h = sha256(Buffer.concat([seed, Buffer.from(`${entry.platform}:${entry.platformUserId}`, 'utf8')]));
  return (h.readUIntBE(0, 6) + 1) / U_DENOMINATOR;
}

export function keyOf(seed: Buffer, entry: DrawEntry): number {
  if (!Number.isInteger(entry.weight) || entry.weight < 1)
    throw new Error(`weight must be a whole number ≥ 1 (${entry.platform}:${entry.platformUserId})`);
  return Math.log(uniformOf(seed, entry)) / entry.weight;
}

/**
 * Every entry with its key, largest key first. Equal keys (two identities whose hashes share their
 * first 6 bytes and whose weights are equal: about never) keep the canonical order, so the result
 * is still one fixed list.
 */
export function rankEntries<E extends DrawEntry>(seedHex: string, entries: readonly E[]): KeyedEntry<E>[] {
  const seed = seedBytes(seedHex);
  return canonicalOrder(entries)
    .map((entry) => ({ entry, key: keyOf(seed, entry) }))
    .sort((a, b) => b.key - a.key);
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
