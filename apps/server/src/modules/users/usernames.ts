/**
 * Usernames: a base name (1–30 characters, no `#`) plus, only when that base is already taken,
 * a `#NNNN` suffix chosen by the server. The web app shows the part before the last `#`; the
 * profile shows the suffix separately. See docs/accounts.md.
 *
 * A name must not pass for someone else's: it is stored NFKC-normalised (fullwidth `Ａdmin` is
 * `Admin`), invisible, formatting, bidi-control, private-use, unassigned and surrogate characters
 * are refused, staff-like names are reserved, and uniqueness holds on a look-alike-folded form
 * (`users.username_skeleton`): Unicode's confusables (UTS #39, from the `unhomoglyph` package) on
 * the lower-cased name, so `Bob`, `B0b` and `Воb` (Cyrillic) are one name.
 */
import { randomInt } from 'node:crypto';
import { ERROR_KEYS, USERNAME_MAX_LENGTH } from '@telerace/protocol';
import type { FastifyBaseLogger } from 'fastify';
import unhomoglyph from 'unhomoglyph';
import type { Db } from '../../db/client.js';
import { isUniqueViolation } from '../../db/unique-violation.js';
import { DomainError } from '../../domain-error.js';
import { setUsernameSkeleton, usernameClash, usersWithoutSkeleton } from './usernames.repo.js';

const FOUR_DIGIT_ATTEMPTS = 5;
const SIX_DIGIT_ATTEMPTS = 5;

/**
 * Characters no name may hold: controls, format characters (zero-width joiners and spaces, bidi
 * embeddings/overrides/isolates, soft hyphen, BOM, tags), private use, unassigned code points,
 * surrogates, line and paragraph separators, the other default-ignorable ones that render as
 * nothing (Hangul fillers, …), and `#` (the suffix separator). Variation selectors are allowed
 * only right after an emoji, where they choose its presentation.
 */
const FORBIDDEN =
  /[#\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Cs}\p{Zl}\p{Zp}]|(?![\uFE0E\uFE0F])\p{Default_Ignorable_Code_Point}|(?<!\p{Extended_Pictographic})[\uFE0E\uFE0F]/u;
/** The same, for cleaning free text (social display names, e-mail local parts) instead of refusing it. */
const FORBIDDEN_GLOBAL = new RegExp(FORBIDDEN.source, 'gu');

/**
 * Names only the team may carry, compared on their reserved key (look-alikes, case, accents,
 * spaces and punctuation folded away), so `Аdmin`, `a.d.m.i.n`, `Modérateur` and `r00t` match too.
 */
const RESERVED_NAMES = [
  'admin',
  'administrator',
  'administrateur',
  'moderator',
  'moderateur',
  'mod',
  'modo',
  'staff',
  'support',
  'help',
  'helpdesk',
  'system',
  'systeme',
  'root',
  'superuser',
  'sysadmin',
  'owner',
  'operator',
  'official',
  'officiel',
  'security',
  'webmaster',
  'postmaster',
  'deleted driver',
  'deleted user',
  'null',
  'undefined',
];
/** The site's own name is reserved anywhere in a name ("Telerace Team", "the_telerace_bot"). */
const BRAND = 'telerace';

export type UsernameProblem = 'characters' | 'reserved' | 'length';

/** NFKC with runs of spaces made one and the ends trimmed: the form a username is stored in. */
export function normalizeUsername(raw: string): string {
  return raw.normalize('NFKC').replace(/\s+/gu, ' ').trim();
}

/** UTS #39 skeleton: NFD, every character replaced by its confusables prototype, NFD again. */
function skeleton(text: string): string {
  return unhomoglyph(text.normalize('NFD')).normalize('NFD');
}

/**
 * The look-alike-folded form uniqueness is checked on: case-insensitive as well as confusable.
 * Upper-casing first makes every casing of a name one string; the skeleton then folds capitals
 * that look alike (`I`, `l`, `1`; Cyrillic `А` and Latin `A`), and a second skeleton after
 * lower-casing folds the lower-case look-alikes (`rn` and `m`).
 */
export function usernameSkeleton(username: string): string {
  return skeleton(skeleton(normalizeUsername(username).toUpperCase()).toLowerCase());
}

function reservedKey(name: string): string {
  return usernameSkeleton(name).replace(/[\p{M}\p{P}\p{S}\p{Z}]/gu, '');
}

const RESERVED_KEYS = new Set(RESERVED_NAMES.map(reservedKey));
const BRAND_KEY = reservedKey(BRAND);

export function isReservedUsername(name: string): boolean {
  const key = reservedKey(name);
  return RESERVED_KEYS.has(key) || key.includes(BRAND_KEY);
}

export type UsernameCheck =
  | { ok: true; username: string; usernameSkeleton: string }
  | { ok: false; problem: UsernameProblem };

/** Whether a chosen base name may be used, and the form it is stored in (pure). */
export function checkUsername(raw: string, options: { allowReserved?: boolean } = {}): UsernameCheck {
  // A lone surrogate is \p{Cs}: the same test refuses text that is not well-formed UTF-16.
  if (FORBIDDEN.test(raw) || FORBIDDEN.test(raw.normalize('NFKC')))
    return { ok: false, problem: 'characters' };
  const username = normalizeUsername(raw);
  if (username.length === 0 || username.length > USERNAME_MAX_LENGTH) return { ok: false, problem: 'length' };
  if (!options.allowReserved && isReservedUsername(username)) return { ok: false, problem: 'reserved' };
  return { ok: true, username, usernameSkeleton: usernameSkeleton(username) };
}

const PROBLEM_ERRORS: Record<UsernameProblem, () => DomainError> = {
  characters: () =>
    new DomainError(
      'invalid',
      'Usernames cannot contain invisible, control or formatting characters.',
      ERROR_KEYS.usernameInvalidCharacters,
    ),
  reserved: () => new DomainError('invalid', 'This username is reserved.', ERROR_KEYS.usernameReserved),
  length: () =>
    new DomainError(
      'invalid',
      `body.username: must be 1–${USERNAME_MAX_LENGTH} characters once normalised`,
      ERROR_KEYS.validation,
    ),
};

/** The stored form of a name a member chose (sign-up, details), or a 400 saying what is wrong. */
export function acceptableUsername(
  raw: string,
  options: { allowReserved?: boolean } = {},
): { username: string; usernameSkeleton: string } {
  const check = checkUsername(raw, options);
  if (!check.ok) throw PROBLEM_ERRORS[check.problem]();
  return { username: check.username, usernameSkeleton: check.usernameSkeleton };
}

/** A base name from free text (e.g. an e-mail's local part or a social display name). */
export function baseUsername(raw: string, fallback = 'driver'): string {
  const cleaned = normalizeUsername(
    raw.replace(FORBIDDEN_GLOBAL, '').normalize('NFKC').replace(FORBIDDEN_GLOBAL, ''),
  )
    .slice(0, USERNAME_MAX_LENGTH)
    // Slicing may split a surrogate pair: its lone half goes too.
    .replace(/\p{Cs}/gu, '')
    .trim();
  return cleaned || fallback;
}

/** Whether a name, or one that looks like it, is already used (deleted members' names included). */
export function isUsernameTaken(db: Db, username: string, exceptUserId?: number): Promise<boolean> {
  return usernameClash(db, username, usernameSkeleton(username), exceptUserId);
}

function randomDigits(digits: number): string {
  return String(randomInt(10 ** digits)).padStart(digits, '0');
}

/**
 * A free username for `base` (free text: it is cleaned first, and a reserved name becomes
 * `driver` unless `allowReserved`): the base itself if neither it nor a look-alike is taken, else
 * `base#NNNN` (a few random 4-digit tries), else `base#NNNNNN`. The caller inserts both columns;
 * the unique indexes still decide against a concurrent taker.
 */
export async function assignUsername(
  db: Db,
  rawBase: string,
  options: { allowReserved?: boolean } = {},
): Promise<{ username: string; usernameSkeleton: string }> {
  const cleaned = baseUsername(rawBase);
  const base = !options.allowReserved && isReservedUsername(cleaned) ? 'driver' : cleaned;
  const named = (username: string) => ({ username, usernameSkeleton: usernameSkeleton(username) });
  if (!(await isUsernameTaken(db, base))) return named(base);
  for (const [digits, attempts] of [
    [4, FOUR_DIGIT_ATTEMPTS],
    [6, SIX_DIGIT_ATTEMPTS],
  ] as const) {
    for (let i = 0; i < attempts; i++) {
      const candidate = `${base}#${randomDigits(digits)}`;
      if (!(await isUsernameTaken(db, candidate))) return named(candidate);
    }
  }
  throw new Error(`no free username found for ${JSON.stringify(base)}`);
}

/**
 * Start-up: gives rows written before `username_skeleton` existed their skeleton. Two old names
 * that fold to the same skeleton cannot both have it (unique index): the later one keeps null,
 * which is logged, and start-up goes on (its name still counts case-insensitively).
 */
export async function fillUsernameSkeletons(db: Db, log: FastifyBaseLogger): Promise<void> {
  let filled = 0;
  for (const row of await usersWithoutSkeleton(db)) {
    try {
      await setUsernameSkeleton(db, row.id, usernameSkeleton(row.username));
      filled += 1;
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      log.warn(
        { userId: row.id },
        'username looks like another member’s: left without a skeleton (rename one of them)',
      );
    }
  }
  if (filled > 0) log.info({ filled }, 'username skeletons filled');
}
