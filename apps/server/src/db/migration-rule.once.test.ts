/**
 * The rolling-upgrade rule (migration-rule.ts): every migration since ROLLING_RULE_SINCE only
 * expands the schema or says what its upgrade must be; the rule itself is checked on each kind of
 * statement and on the migrations released before it, whose verdicts are known (0007 dropped and
 * re-keyed the subscriptions, 0009 made a column NOT NULL). No database: once, on pglite.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR } from '../paths.js';
import {
  breakingChanges,
  migrationVerdict,
  ROLLING_RULE_SINCE,
  statements,
  upgradeDecision,
} from './migration-rule.js';

const migrations = readdirSync(MIGRATIONS_DIR)
  .filter((name) => name.endsWith('.sql'))
  .sort()
  .map((name) => ({
    name,
    index: Number(name.slice(0, 4)),
    sql: readFileSync(join(MIGRATIONS_DIR, name), 'utf8'),
  }));

describe('the migrations', () => {
  it('since the rule, each keeps the previous release working or says how to upgrade (-- upgrade: …)', () => {
    const unmarked = migrations
      .filter((m) => m.index >= ROLLING_RULE_SINCE)
      .map((m) => ({ name: m.name, verdict: migrationVerdict(m.sql) }))
      .filter(({ verdict }) => !verdict.marked && verdict.reasons.length > 0)
      .map(({ name, verdict }) => `${name}\n  ${verdict.reasons.join('\n  ')}`);
    expect(
      unmarked,
      'make it expand-only, or add "-- upgrade: stop-all, <why>" (docs/operations.md)',
    ).toEqual([]);
  });

  it('released before the rule: the ones that broke the previous release are the ones it finds', () => {
    const breaking = migrations
      .filter((m) => m.index < ROLLING_RULE_SINCE)
      .filter((m) => migrationVerdict(m.sql).mode === 'stop-all')
      .map((m) => m.name);
    // 0002: an append-only trigger on audit_log; 0007: subscriptions re-keyed (a column dropped, a
    // NOT NULL, a check on the ledger's old columns); 0009: nominal_expires_at made NOT NULL.
    expect(breaking).toEqual([
      '0002_audit_log_append_only.sql',
      '0007_integrations.sql',
      '0009_race_kept_sessions.sql',
    ]);
  });
});

describe('breakingChanges', () => {
  it.each([
    [
      'a new table with its constraints and indexes',
      'CREATE TABLE "t" ("id" serial PRIMARY KEY NOT NULL, "n" text NOT NULL);\nALTER TABLE "t" ADD CONSTRAINT "t_fk" FOREIGN KEY ("n") REFERENCES "public"."users"("id");\nCREATE UNIQUE INDEX "t_n" ON "t" USING btree ("n");',
    ],
    ['a nullable column', 'ALTER TABLE "cars" ADD COLUMN "color" text;'],
    ['a NOT NULL column with a default', 'ALTER TABLE "cars" ADD COLUMN "laps" integer DEFAULT 0 NOT NULL;'],
    ['a column made nullable', 'ALTER TABLE "cars" ALTER COLUMN "name" DROP NOT NULL;'],
    ['an index', 'CREATE INDEX "cars_name_idx" ON "cars" USING btree ("name");'],
    [
      'a unique index on a new column (old rows hold NULL)',
      'ALTER TABLE "cars" ADD COLUMN "tag" text;\nCREATE UNIQUE INDEX "cars_tag" ON "cars" USING btree ("tag") WHERE "cars"."deleted_at" is null;',
    ],
    [
      'a foreign key on a new column',
      'ALTER TABLE "cars" ADD COLUMN "owner_id" integer;\nALTER TABLE "cars" ADD CONSTRAINT "cars_owner_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id");',
    ],
    ['a backfill', 'UPDATE "cars" SET "color" = \'red\' WHERE "color" IS NULL;'],
    ['a new enum value', 'ALTER TYPE "platform" ADD VALUE \'kick\';'],
    [
      'words in strings and comments',
      '-- we DROP nothing here\nINSERT INTO "settings" ("key", "value") VALUES (\'x\', \'"DROP TABLE users; RENAME"\');',
    ],
  ])('passes %s', (_what, sql) => {
    expect(breakingChanges(sql)).toEqual([]);
  });

  it.each([
    ['a dropped table', 'DROP TABLE "cars";', 'drops what the previous release may use (table)'],
    [
      'a dropped column',
      'ALTER TABLE "cars" DROP COLUMN "name";',
      'drops what the previous release may use (column)',
    ],
    ['a dropped index', 'DROP INDEX "cars_name_key";', 'drops what the previous release may use (index)'],
    [
      'a dropped default',
      'ALTER TABLE "cars" ALTER COLUMN "laps" DROP DEFAULT;',
      'drops what the previous release may use (default)',
    ],
    ['a renamed column', 'ALTER TABLE "cars" RENAME COLUMN "name" TO "title";', 'renames'],
    ['a renamed table', 'ALTER TABLE cars RENAME TO vehicles;', 'renames'],
    [
      'a type change',
      'ALTER TABLE "cars" ALTER COLUMN "laps" SET DATA TYPE bigint;',
      "changes a column's type",
    ],
    [
      'a column made NOT NULL',
      'ALTER TABLE "cars" ALTER COLUMN "color" SET NOT NULL;',
      'makes a column NOT NULL',
    ],
    [
      'a NOT NULL column without a default',
      'ALTER TABLE "cars" ADD COLUMN "owner" integer NOT NULL;',
      'without a default',
    ],
    [
      'a check on old columns',
      'ALTER TABLE "cars" ADD CONSTRAINT "c" CHECK (("cars"."name" <> \'\') and (length("cars"."name") < 40));',
      'adds a constraint',
    ],
    [
      'a unique index on old columns',
      'CREATE UNIQUE INDEX "cars_name_key" ON "cars" USING btree (lower("name"));',
      'adds a unique index',
    ],
    [
      'a trigger on an old table',
      'CREATE TRIGGER no_delete BEFORE DELETE ON cars FOR EACH ROW EXECUTE FUNCTION refuse();',
      'adds a trigger',
    ],
  ])('finds %s', (_what, sql, reason) => {
    const found = breakingChanges(sql);
    expect(found).toHaveLength(1);
    expect(found[0]).toContain(reason);
  });

  it('splits on semicolons outside dollar-quoted bodies', () => {
    expect(
      statements(
        "CREATE FUNCTION f() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'no;'; END; $$;\nSELECT 1;",
      ),
    ).toEqual(["CREATE FUNCTION f() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'no;'; END; $$", 'SELECT 1']);
  });
});

describe('migrationVerdict', () => {
  it('takes the migration’s own word: stop-all even for what looks harmless', () => {
    expect(
      migrationVerdict(
        '-- upgrade: stop-all, the race engine reads the new column at start\nALTER TABLE "races" ADD COLUMN "x" text;',
      ),
    ).toEqual({
      mode: 'stop-all',
      reasons: ['the race engine reads the new column at start'],
      marked: true,
    });
  });

  it('takes the migration’s own word: rolling for the contract step of an expand/contract', () => {
    const verdict = migrationVerdict(
      '-- upgrade: rolling, nothing reads "cars"."legacy" since release 2026.3 (expand step 0011)\nALTER TABLE "cars" DROP COLUMN "legacy";',
    );
    expect(verdict).toMatchObject({ mode: 'rolling', marked: true });
  });

  it('is stop-all, unmarked, for a migration that breaks the rule', () => {
    expect(migrationVerdict('ALTER TABLE "cars" DROP COLUMN "name";')).toMatchObject({
      mode: 'stop-all',
      marked: false,
    });
  });

  it('needs a reason: a bare marker is not one', () => {
    expect(migrationVerdict('-- upgrade: rolling\nALTER TABLE "cars" DROP COLUMN "name";').marked).toBe(
      false,
    );
  });
});

describe('upgradeDecision', () => {
  const base = [{ tag: '0010_base', sql: 'CREATE TABLE "t" ("id" serial PRIMARY KEY NOT NULL);' }];
  const expand = { tag: '0011_expand', sql: 'ALTER TABLE "t" ADD COLUMN "name" text;' };
  const contract = {
    tag: '0012_contract',
    sql: '-- upgrade: rolling, 0011’s release reads "name" only\nALTER TABLE "t" DROP COLUMN "legacy";',
  };
  const breaking = { tag: '0012_breaking', sql: 'ALTER TABLE "t" ALTER COLUMN "name" SET NOT NULL;' };

  it('rolls forward over migrations that expand, or that vouch for the release they replace', () => {
    expect(upgradeDecision(base, [...base, expand])).toEqual({ mode: 'rolling', reasons: [] });
    expect(upgradeDecision([...base, expand], [...base, expand, contract]).mode).toBe('rolling');
    expect(upgradeDecision(base, base).mode).toBe('rolling');
  });

  it('stops every instance for a migration that breaks the previous release', () => {
    const decision = upgradeDecision([...base, expand], [...base, expand, breaking]);
    expect(decision.mode).toBe('stop-all');
    expect(decision.reasons[0]).toMatch(/^0012_breaking: makes a column NOT NULL/);
  });

  it('goes back over migrations that only added, and refuses to go back past one that changed more', () => {
    expect(upgradeDecision([...base, expand], base).mode).toBe('rolling');
    // The contract step vouched for its own predecessor only; the release before it may read "legacy".
    expect(upgradeDecision([...base, expand, contract], base)).toMatchObject({ mode: 'refuse' });
    expect(upgradeDecision([...base, expand, breaking], [...base, expand]).mode).toBe('refuse');
  });
});
