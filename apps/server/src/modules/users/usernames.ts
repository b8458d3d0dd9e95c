/**
 * Usernames: a base name (1–30 characters, no `#`) plus, only when that base is already taken,
 * a `#NNNN` suffix chosen by the server. The web app shows the part before the last `#`; the
 * profile shows the suffix separately. See docs/accounts.md.
 */
import { randomInt } from 'node:crypto';
import { USERNAME_MAX_LENGTH } from '@telerace/protocol';
import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { users } from '../../db/schema.js';

const FOUR_DIGIT_ATTEMPTS = 5;
const SIX_DIGIT_ATTEMPTS = 5;

/** A base name from free text (e.g. an e-mail's local part or a social display name). */
export function baseUsername(raw: string, fallback = 'driver'): string {
  const cleaned = raw
    .replace(/[#\p{Cc}]/gu, '')
    .trim()
    .slice(0, USERNAME_MAX_LENGTH)
    .trim();
  return cleaned || fallback;
}

export async function isUsernameTaken(db: Db, username: string): Promise<boolean> {
  const rows = await db
    .select({ id: users.id })
    .from(users)
    .where(sql`lower(${users.username}) = lower(${username})`)
    .limit(1);
  return rows.length > 0;
}

function randomDigits(digits: number): string {
  return String(randomInt(10 ** digits)).padStart(digits, '0');
}

/**
 * A free username for `base`: the base itself if free (case-insensitively), else `base#NNNN`
 * (a few random 4-digit tries), else `base#NNNNNN`. The caller still inserts under the unique
 * index, so a concurrent taker makes the insert fail rather than produce a duplicate.
 */
export async function assignUsername(db: Db, base: string): Promise<string> {
  if (!(await isUsernameTaken(db, base))) return base;
  for (const [digits, attempts] of [
    [4, FOUR_DIGIT_ATTEMPTS],
    [6, SIX_DIGIT_ATTEMPTS],
  ] as const) {
    for (let i = 0; i < attempts; i++) {
      const candidate = `${base}#${randomDigits(digits)}`;
      if (!(await isUsernameTaken(db, candidate))) return candidate;
    }
  }
  throw new Error(`no free username found for ${JSON.stringify(base)}`);
}
