/**
 * Checks a published raffle (its record, GET /api/raffles/{id}/record) with the draw's own
 * functions: the seed matches the commitment published at the opening, the entries match the hash
 * taken at the draw, and the winners are the ones the procedure picks. Pure: `raffle-verify.ts`
 * (`npm run verify-raffle`) loads the JSON and prints the result.
 */
import { RaffleRecord } from '@telerace/protocol';
import { commitmentOf, drawWinners, entriesHashOf } from './draw.js';

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

const identity = (e: { platform: string; platformUserId: string }) => `${e.platform}:${e.platformUserId}`;

/** A record saved before the entry count was published (it had every entry already) is read too. */
const PublishedRecord = RaffleRecord.partial({ entryCount: true });

export function verifyPublishedRaffle(json: unknown): RaffleVerification {
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

  const checks: RaffleCheck[] = [];
  let commitment: string;
  try {
    commitment = commitmentOf(raffle.seed);
  } catch (error) {
    return refuse(raffle.seed, (error as Error).message);
  }
  checks.push({
    name: 'commitment',
    ok: commitment === raffle.commitment,
    published: raffle.commitment,
    computed: commitment,
  });

  const entriesHash = entriesHashOf(raffle.entries);
  checks.push({
    name: 'entriesHash',
    ok: entriesHash === raffle.entriesHash,
    published: raffle.entriesHash,
    computed: entriesHash,
  });

  // Compared as lists (a user id may hold a comma); shown as text.
  let computed: string[];
  try {
    computed = drawWinners(raffle.seed, raffle.entries, raffle.racers).map(identity);
  } catch (error) {
    computed = [(error as Error).message];
  }
  const published = raffle.winners.map(identity);
  checks.push({
    name: 'winners',
    ok: JSON.stringify(computed) === JSON.stringify(published),
    published: published.join(', '),
    computed: computed.join(', '),
  });

  return { ok: checks.every((c) => c.ok), checks };
}
