import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { users } from '../../db/schema.js';
import { buildTestApp, createTestEnvironment, startTestApp } from '../../test/app.js';
import {
  assignUsername,
  baseUsername,
  checkUsername,
  fillUsernameSkeletons,
  isReservedUsername,
  normalizeUsername,
  usernameSkeleton,
} from './usernames.js';

describe('checkUsername: characters', () => {
  it.each([
    ['Zoë', 'Zoë'],
    ['Zoe\u0308', 'Zoë'],
    ['José', 'José'],
    ['Renée-Claude', 'Renée-Claude'],
    ['山田太郎', '山田太郎'],
    ['김민준', '김민준'],
    ['Ольга', 'Ольга'],
    ['Ελένη', 'Ελένη'],
    ['محمد', 'محمد'],
    ['Nguyễn Văn An', 'Nguyễn Văn An'],
    ['race_fan-42', 'race_fan-42'],
    ['🏎\uFE0F racer', '🏎\uFE0F racer'],
    ['Ｓｐｅｅｄｙ', 'Speedy'],
    ['a\u3000b', 'a b'],
    ['a   b', 'a b'],
    ['a\u00A0b', 'a b'],
  ])('accepts %j, stored as %j', (raw, stored) => {
    expect(checkUsername(raw)).toMatchObject({ ok: true, username: stored });
  });

  it.each([
    ['zero-width joiner', 'ad\u200Dmin'],
    ['zero-width non-joiner', 'bo\u200Cb'],
    ['zero-width space', 'bob\u200B'],
    ['word joiner', 'b\u2060ob'],
    ['byte-order mark', '\uFEFFbob'],
    ['soft hyphen', 'bo\u00ADb'],
    ['right-to-left override', 'evil\u202Egnp.exe'],
    ['left-to-right mark', 'bob\u200E'],
    ['bidi isolate', '\u2066bob\u2069'],
    ['Arabic letter mark', 'bob\u061C'],
    ['tag character', 'bob\u{E0041}'],
    ['Hangul filler', '\u3164'],
    ['Hangul filler inside', 'bo\u3164b'],
    ['combining grapheme joiner', 'bo\u034Fb'],
    ['variation selector after a letter', 'bob\uFE0F'],
    ['lone high surrogate', 'bob\uD800'],
    ['lone low surrogate', '\uDC00bob'],
    ['private use', 'bob\uE000'],
    ['supplementary private use', 'bob\u{F0000}'],
    ['unassigned', 'bob\u0378'],
    ['noncharacter', 'bob\uFFFF'],
    ['control', 'bob\u0007'],
    ['line separator', 'bob\u2028name'],
    ['paragraph separator', 'bob\u2029name'],
    ['hash', 'bob#1234'],
  ])('refuses a %s', (_what, raw) => {
    expect(checkUsername(raw)).toEqual({ ok: false, problem: 'characters' });
  });

  it('refuses a name that NFKC stretches past 30 characters', () => {
    // U+FDFA is one character that NFKC spells out as 18.
    expect(checkUsername('\uFDFA\uFDFA')).toEqual({ ok: false, problem: 'length' });
  });
});

describe('reserved names', () => {
  it.each([
    'admin',
    'Admin',
    'ADMIN',
    'Ａdmin',
    'Аdmin',
    'аdmіn',
    'a.d.m.i.n',
    'Admin ',
    'Administrator',
    'Administrateur',
    'moderator',
    'Modérateur',
    'mod',
    'Telerace',
    'TeleRace Official',
    'the_telerace_team',
    'Τelerace',
    'deleted driver',
    'Deleted_Driver',
    'DeletedDriver',
    'system',
    'support',
    'staff',
    'root',
    'r00t',
  ])('%j is reserved', (name) => {
    expect(isReservedUsername(name)).toBe(true);
    expect(checkUsername(name)).toEqual({ ok: false, problem: 'reserved' });
  });

  it.each(['adminton', 'badminton', 'modem', 'Rooted', 'Supporter42', 'Sally', 'Root beer'])(
    '%j is free',
    (name) => {
      expect(isReservedUsername(name)).toBe(false);
    },
  );

  it('an admin may carry one', () => {
    expect(checkUsername('Admin', { allowReserved: true })).toMatchObject({ ok: true, username: 'Admin' });
  });
});

describe('usernameSkeleton', () => {
  it.each([
    ['bob', 'Bob'],
    ['bob', 'BOB'],
    ['bob', 'b0b'],
    ['bob', 'Воb'],
    ['Alice', 'AIice'],
    ['Alice', 'Аlice'],
    ['Alice', 'Ａｌｉｃｅ'],
    ['paypal', 'pаypаl'],
    ['modem', 'rnodem'],
    ['admin', 'Admin'],
    ['admin', 'ADMIN'],
    ['alice', 'ALICE'],
    ['Bill', 'BiII'],
    ['Speedy Gonzales', 'Speedy\u00A0Gonzales'],
  ])('%j and %j are one name', (a, b) => {
    expect(usernameSkeleton(a)).toBe(usernameSkeleton(b));
  });

  it.each([
    ['bob', 'bob#1234'],
    ['bob#1234', 'bob#1235'],
    ['Zoë', 'Zoe'],
    ['José', 'Jose'],
    ['山田', '山本'],
    ['alice', 'alicia'],
  ])('%j and %j are two names', (a, b) => {
    expect(usernameSkeleton(a)).not.toBe(usernameSkeleton(b));
  });
});

describe('baseUsername', () => {
  it.each([
    ['jane.doe', 'jane.doe'],
    ['a#b', 'ab'],
    ['  ', 'driver'],
    ['x'.repeat(40), 'x'.repeat(30)],
    ['Ｊａｎｅ\u200D', 'Jane'],
    ['\u202Eevil', 'evil'],
    ['\u3164', 'driver'],
    [`${'x'.repeat(29)}😀`, 'x'.repeat(29)],
  ])('%j → %j', (raw, expected) => {
    expect(baseUsername(raw)).toBe(expected);
  });

  it('normalizeUsername is idempotent', () => {
    for (const raw of ['Ｓｐｅｅｄｙ  Ｇ', 'Zoe\u0308', ' a \u3000 b ']) {
      expect(normalizeUsername(normalizeUsername(raw))).toBe(normalizeUsername(raw));
    }
  });
});

describe('assignUsername and the start-up fill (database)', () => {
  let t: Awaited<ReturnType<typeof startTestApp>>;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('keeps a free base, suffixes a taken one (case-insensitively) with #NNNN', async () => {
    const db = t.app.database.db;
    expect(await assignUsername(db, 'Speedy')).toEqual({
      username: 'Speedy',
      usernameSkeleton: usernameSkeleton('Speedy'),
    });
    await db.insert(users).values({ username: 'speedy' });
    const suffixed = await assignUsername(db, 'Speedy');
    expect(suffixed.username).toMatch(/^Speedy#\d{4}$/);
    await db.insert(users).values(suffixed);
    expect((await assignUsername(db, 'Speedy')).username).not.toBe(suffixed.username);
  });

  it('suffixes a look-alike of a taken name, cleans free text, and keeps reserved names for admins', async () => {
    const db = t.app.database.db;
    await db.insert(users).values({ username: 'Racer', usernameSkeleton: usernameSkeleton('Racer') });
    expect((await assignUsername(db, 'Rаcer')).username).toMatch(/^Rаcer#\d{4}$/);
    expect((await assignUsername(db, 'Ｎｅｗ\u200Bbie')).username).toBe('Newbie');
    expect((await assignUsername(db, 'Moderator')).username).toMatch(/^driver(#\d{4})?$/);
    expect((await assignUsername(db, 'Moderator', { allowReserved: true })).username).toBe('Moderator');
  });

  it('fills the skeleton of old rows, and leaves a look-alike clash null without failing', async () => {
    const db = t.app.database.db;
    const [first] = await db.insert(users).values({ username: 'Oldtimer' }).returning();
    const [twin] = await db.insert(users).values({ username: 'O1dtimer' }).returning();
    const warnings: unknown[] = [];
    const log = { ...t.app.log, info: () => {}, warn: (...args: unknown[]) => warnings.push(args) };
    await fillUsernameSkeletons(db, log as never);
    const skeletonOf = async (id: number) =>
      (await db.select().from(users).where(eq(users.id, id)))[0]?.usernameSkeleton;
    expect(await skeletonOf(first?.id ?? 0)).toBe(usernameSkeleton('Oldtimer'));
    expect(await skeletonOf(twin?.id ?? 0)).toBeNull();
    expect(warnings).toHaveLength(1);
    expect(JSON.stringify(warnings)).not.toContain('O1dtimer');
  });
});

describe('start-up', () => {
  it('a restarted server fills the skeleton of rows written before it existed', async () => {
    const environment = await createTestEnvironment();
    try {
      const first = await buildTestApp(environment, { persistentDatabase: true });
      const [old] = await first.app.database.db
        .insert(users)
        .values({ username: 'Legacy Larry' })
        .returning();
      await first.app.close();
      const second = await buildTestApp(environment, { persistentDatabase: true });
      try {
        const [row] = await second.app.database.db
          .select()
          .from(users)
          .where(eq(users.id, old?.id ?? 0));
        expect(row?.usernameSkeleton).toBe(usernameSkeleton('Legacy Larry'));
      } finally {
        await second.app.close();
      }
    } finally {
      await environment.dispose();
    }
  });
});
