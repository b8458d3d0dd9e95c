/**
 * The raffle draw's procedure and its public check, pure and shared (docs/raffle-fairness.md;
 * issue 13 fixes the procedure, issue 41 runs the check in the viewer's browser). The server draws
 * with these pieces and a synchronous SHA-256 (modules/raffles/draw.ts); the raffle page and
 * `npm run verify-raffle` check a published record with `verifyRaffleRecord` and Web Crypto, so
 * the three share every step but the hash function itself.
 *
 *   commitment  = hex SHA-256 of the 32 seed bytes (published when the raffle opens)
 *   entriesHash = hex SHA-256 of the canonical list: entries sorted by platform, then platform user
 *                 id (byte order), one `platform:platformUserId:weight` line each, joined with `\n`
 *   key(entry)  = ln(u) / weight, with h = SHA-256(seed ‖ `platform:platformUserId`) and
 *                 u = (first 6 bytes of h, big-endian, + 1) / (2^48 + 1), so 0 < u < 1
 *   winners     = the `racers` entries with the largest keys, largest first (Efraimidis–Spirakis
 *                 weighted sampling without replacement); every entry when there are fewer.
 */
import { RaffleRecord } from './raffles.js';

export interface DrawEntry {
  platform: string;
  platformUserId: string;
  /** A whole number ≥ 1: the entry's chance is proportional to it. */
  weight: number;
}

type Identity = Pick<DrawEntry, 'platform' | 'platformUserId'>;

const SEED_BYTES = 32;
const SEED_HEX = /^[0-9a-f]{64}$/;
const U_DENOMINATOR = 2 ** 48 + 1;
const utf8 = new TextEncoder();

export const hexOf = (bytes: Uint8Array): string =>
  Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');

/** The seed's bytes from its published form (64 lowercase hex digits); throws on anything else. */
export function seedBytes(seedHex: string): Uint8Array {
  if (!SEED_HEX.test(seedHex)) throw new Error(`a seed is ${SEED_BYTES * 2} lowercase hex digits`);
  return Uint8Array.from(seedHex.match(/../g) ?? [], (pair) => Number.parseInt(pair, 16));
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
export function compareIdentity(a: Identity, b: Identity): number {
  return compareBytes(a.platform, b.platform) || compareBytes(a.platformUserId, b.platformUserId);
}

export function canonicalOrder<E extends Identity>(entries: readonly E[]): E[] {
  return [...entries].sort(compareIdentity);
}

export function canonicalEntriesText(entries: readonly DrawEntry[]): string {
  return canonicalOrder(entries)
    .map((e) => `${e.platform}:${e.platformUserId}:${e.weight}`)
    .join('\n');
}

/** The bytes hashed for an entry's key: the seed followed by the UTF-8 of `platform:platformUserId`. */
export function keyInput(seed: Uint8Array, entry: Identity): Uint8Array {
  const identity = utf8.encode(`${entry.platform}:${entry.platformUserId}`);
  const input = new Uint8Array(seed.length + identity.length);
  input.set(seed);
  input.set(identity, seed.length);
  return input;
}

/** u in (0, 1) from the first 6 bytes of the key's hash (never 0, so ln(u) is finite; never 1). */
export function uniformOfDigest(digest: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < 6; i++) n = n * 256 + (digest[i] ?? 0);
  return (n + 1) / U_DENOMINATOR;
}

export function keyOfDigest(digest: Uint8Array, entry: DrawEntry): number {
  if (!Number.isInteger(entry.weight) || entry.weight < 1)
    throw new Error(`weight must be a whole number ≥ 1 (${entry.platform}:${entry.platformUserId})`);
  return Math.log(uniformOfDigest(digest)) / entry.weight;
}

export interface KeyedEntry<E extends DrawEntry> {
  entry: E;
  key: number;
}

/**
 * Keyed entries given in the canonical order, largest key first. Equal keys (two identities whose
 * hashes share their first 6 bytes and whose weights are equal: about never) keep the canonical
 * order (the sort is stable), so the result is still one fixed list.
 */
export function byKey<E extends DrawEntry>(canonical: readonly KeyedEntry<E>[]): KeyedEntry<E>[] {
  return [...canonical].sort((a, b) => b.key - a.key);
}

/** A SHA-256 of bytes; Web Crypto's by default (browsers, and Node ≥ 19 as `globalThis.crypto`). */
export type Sha256 = (data: Uint8Array) => Promise<Uint8Array>;

const webSha256: Sha256 = async (data) =>
  new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', data as Uint8Array<ArrayBuffer>));

/** The winners, first drawn first, with an asynchronous hash (the check's side of the draw). */
export async function drawWinnersWith<E extends DrawEntry>(
  sha256: Sha256,
  seedHex: string,
  entries: readonly E[],
  racers: number,
): Promise<E[]> {
  const seed = seedBytes(seedHex);
  const canonical = canonicalOrder(entries);
  const digests = await Promise.all(canonical.map((entry) => sha256(keyInput(seed, entry))));
  const keyed = canonical.map((entry, i) => ({ entry, key: keyOfDigest(digests[i] as Uint8Array, entry) }));
  return byKey(keyed)
    .slice(0, racers)
    .map((k) => k.entry);
}

/** One check of a published raffle; they come in this order: format, commitment, entriesHash, winners. */
export interface RaffleCheck {
  name: 'format' | 'commitment' | 'entriesHash' | 'winners';
  ok: boolean;
  /** What the published JSON says. */
  published: string;
  /** What the procedure computes from it. */
  computed: string;
}

export interface RaffleVerification {
  ok: boolean;
  checks: RaffleCheck[];
}

const identityText = (e: Identity) => `${e.platform}:${e.platformUserId}`;

/**
 * A record saved before the entry count (or the later counts, issue 41) was published is read too:
 * it had every entry already, and the counts are not part of the draw.
 */
const PublishedRecord = RaffleRecord.partial({
  entryCount: true,
  totalWeight: true,
  entriesByPlatform: true,
});

/**
 * Checks a published raffle (its record, GET /api/raffles/{id}/record): the record is whole and
 * drawn (`format`), the seed matches the commitment published at the opening, the entries match
 * the hash taken at the draw, and the winners are the ones the procedure picks.
 */
export async function verifyRaffleRecord(
  json: unknown,
  sha256: Sha256 = webSha256,
): Promise<RaffleVerification> {
  const parsed = PublishedRecord.safeParse(json);
  const refuse = (published: string, computed: string): RaffleVerification => ({
    ok: false,
    checks: [{ name: 'format', ok: false, published, computed }],
  });
  if (!parsed.success) return refuse('not a raffle', parsed.error.issues.map((i) => i.message).join('; '));
  const raffle = parsed.data;
  if (raffle.status !== 'drawn' || raffle.seed === undefined || raffle.entriesHash === undefined)
    return refuse(`status ${raffle.status}`, 'only a drawn raffle has its seed and entries hash published');
  // A summary, or a record cut short, is not the list drawn from.
  if (raffle.entryCount !== undefined && raffle.entryCount !== raffle.entries.length)
    return refuse(`${raffle.entryCount} entries`, `${raffle.entries.length} listed: not the whole record`);
  let seed: Uint8Array;
  try {
    seed = seedBytes(raffle.seed);
  } catch (error) {
    return refuse(raffle.seed, (error as Error).message);
  }

  const checks: RaffleCheck[] = [
    {
      name: 'format',
      ok: true,
      published: `${raffle.entryCount ?? raffle.entries.length} entries`,
      computed: `${raffle.entries.length} listed`,
    },
  ];
  const commitment = hexOf(await sha256(seed));
  checks.push({
    name: 'commitment',
    ok: commitment === raffle.commitment,
    published: raffle.commitment,
    computed: commitment,
  });

  const entriesHash = hexOf(await sha256(utf8.encode(canonicalEntriesText(raffle.entries))));
  checks.push({
    name: 'entriesHash',
    ok: entriesHash === raffle.entriesHash,
    published: raffle.entriesHash,
    computed: entriesHash,
  });

  // Compared as lists (a user id may hold a comma); shown as text.
  let computed: string[];
  try {
    computed = (await drawWinnersWith(sha256, raffle.seed, raffle.entries, raffle.racers)).map(identityText);
  } catch (error) {
    computed = [(error as Error).message];
  }
  const published = raffle.winners.map(identityText);
  checks.push({
    name: 'winners',
    ok: JSON.stringify(computed) === JSON.stringify(published),
    published: published.join(', '),
    computed: computed.join(', '),
  });

  return { ok: checks.every((c) => c.ok), checks };
}
