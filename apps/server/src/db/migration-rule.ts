/**
 * The rolling-upgrade rule for migrations (docs/decisions.md "Releases beside each other"): during
 * a rolling upgrade the previous release keeps running on the schema the new one migrated to, so a
 * migration may only expand it — new tables, new nullable or defaulted columns, new indexes, data
 * backfills. What can break the previous release is found here by reading the SQL: a drop, a
 * rename, a type change, a column made NOT NULL, a NOT NULL column without a default, and on a
 * table the previous release already writes, a new constraint, unique index or trigger over
 * columns it writes. A migration that does one of those says what the upgrade must be on a
 * comment line of its own:
 *
 *   -- upgrade: stop-all, <why>   every instance stops, one starts the new release first
 *   -- upgrade: rolling, <why>    the contract step of an expand/contract: the previous release
 *                                 no longer uses what this drops (the reason says how we know)
 *
 * deploy/release.sh asks `npm run upgrade:mode` (scripts/upgrade-mode.ts), which applies this to
 * the migrations one release has and the other lacks; migration-rule.once.test.ts fails on a
 * migration after ROLLING_RULE_SINCE that breaks the rule unmarked.
 */

/** The first migration written under this rule; the ones before were released with stop-all upgrades. */
export const ROLLING_RULE_SINCE = 10;

export type UpgradeMode = 'rolling' | 'stop-all';

export interface MigrationVerdict {
  /** What the upgrade that applies it must be. */
  mode: UpgradeMode;
  /** Why: the marker's reason, or what the SQL does that the previous release may not survive. */
  reasons: string[];
  /** Whether the migration says so itself (`-- upgrade: …`). */
  marked: boolean;
}

const MARKER = /^--\s*upgrade:\s*(rolling|stop-all)\s*[,:—-]\s*(\S.*)$/im;

/** A name as written in SQL, quoted or not, with any schema prefix (`"public"."users"` → users). */
const NAME = String.raw`(?:"[^"]+"|[A-Za-z_][\w$]*)(?:\s*\.\s*(?:"[^"]+"|[A-Za-z_][\w$]*))?`;

function bareName(name: string): string {
  const last = name.split('.').at(-1) ?? name;
  return last.trim().replace(/^"|"$/g, '');
}

/** The names an expression mentions (quoted identifiers, and bare words that are not SQL keywords). */
function namesIn(text: string): string[] {
  const names: string[] = [];
  for (const match of text.matchAll(/"([^"]+)"|'(?:[^']|'')*'|\b([A-Za-z_][\w$]*)\b/g)) {
    if (match[1] !== undefined) names.push(match[1]);
    else if (match[2] !== undefined && !SQL_WORDS.has(match[2].toLowerCase())) names.push(match[2]);
  }
  return names;
}

const SQL_WORDS = new Set(
  'and or not is null true false in like ilike between any all lower upper coalesce btree hash gin gist using where desc asc nulls first last collate'.split(
    ' ',
  ),
);

/** What the first parenthesised group of `text` holds (to its matching parenthesis), or all of it. */
function firstGroup(text: string): string {
  const start = text.indexOf('(');
  if (start === -1) return text;
  let depth = 0;
  for (let i = start; i < text.length; i += 1) {
    if (text[i] === '(') depth += 1;
    else if (text[i] === ')') depth -= 1;
    if (depth === 0) return text.slice(start + 1, i);
  }
  return text;
}

/** The statements of a migration: split on `;` outside strings, dollar-quoted bodies and comments. */
export function statements(sql: string): string[] {
  const found: string[] = [];
  let current = '';
  let i = 0;
  while (i < sql.length) {
    const rest = sql.slice(i);
    const dollar = /^\$([A-Za-z_]*)\$/.exec(rest);
    if (rest.startsWith('--')) {
      const end = sql.indexOf('\n', i);
      i = end === -1 ? sql.length : end + 1;
      current += ' ';
    } else if (dollar) {
      const end = sql.indexOf(dollar[0], i + dollar[0].length);
      const stop = end === -1 ? sql.length : end + dollar[0].length;
      current += sql.slice(i, stop);
      i = stop;
    } else if (rest.startsWith("'")) {
      let stop = i + 1;
      while (stop < sql.length && !(sql[stop] === "'" && sql[stop + 1] !== "'"))
        stop += sql[stop] === "'" ? 2 : 1;
      current += sql.slice(i, stop + 1);
      i = stop + 1;
    } else if (sql[i] === ';') {
      found.push(current);
      current = '';
      i += 1;
    } else {
      current += sql[i];
      i += 1;
    }
  }
  found.push(current);
  return found.map((statement) => statement.replace(/\s+/g, ' ').trim()).filter((s) => s !== '');
}

/** What in `sql` the previous release may not survive, statement by statement (empty: it only expands). */
export function breakingChanges(sql: string): string[] {
  // What the statements do, not what their strings or function bodies say.
  const all = statements(sql).map((statement) =>
    statement.replace(/'(?:[^']|'')*'/g, "''").replace(/\$([A-Za-z_]*)\$[\s\S]*?\$\1\$/g, '$$$$'),
  );
  const createdTables = new Set<string>();
  const addedColumns = new Set<string>();
  for (const statement of all) {
    const created = new RegExp(`^CREATE TABLE (?:IF NOT EXISTS )?(${NAME})`, 'i').exec(statement);
    if (created?.[1]) createdTables.add(bareName(created[1]));
    const altered = new RegExp(`^ALTER TABLE (?:ONLY )?(?:IF EXISTS )?(${NAME})`, 'i').exec(statement);
    if (altered?.[1])
      for (const added of statement.matchAll(
        new RegExp(`ADD (?:COLUMN )?(?:IF NOT EXISTS )?(${NAME})`, 'gi'),
      ))
        if (added[1] && !/^(CONSTRAINT|PRIMARY|UNIQUE|FOREIGN|CHECK)$/i.test(added[1]))
          addedColumns.add(`${bareName(altered[1])}.${bareName(added[1])}`);
  }
  /** A table the previous release knows, over columns it writes (not all added by this migration). */
  const touchesOldData = (table: string, names: string[]) =>
    !createdTables.has(table) &&
    names.some((name) => name !== table && !addedColumns.has(`${table}.${name}`));

  const reasons: string[] = [];
  for (const statement of all) {
    const say = (what: string) => reasons.push(`${what}: ${statement.slice(0, 160)}`);
    const altered = new RegExp(`^ALTER TABLE (?:ONLY )?(?:IF EXISTS )?(${NAME})`, 'i').exec(statement);
    const onNewTable = altered?.[1] !== undefined && createdTables.has(bareName(altered[1]));
    const drop =
      /\bDROP (TABLE|COLUMN|TYPE|VIEW|MATERIALIZED VIEW|SCHEMA|FUNCTION|TRIGGER|INDEX|SEQUENCE|CONSTRAINT|DEFAULT|POLICY|RULE)\b/i.exec(
        statement,
      );
    if (drop?.[1]) say(`drops what the previous release may use (${drop[1].toLowerCase()})`);
    if (/\bRENAME\b/i.test(statement)) say('renames what the previous release uses by name');
    if (/\bALTER COLUMN \S+ (SET DATA )?TYPE\b/i.test(statement)) say("changes a column's type");
    if (/\bSET NOT NULL\b/i.test(statement))
      say('makes a column NOT NULL: the previous release writes rows without it');
    for (const clause of onNewTable ? [] : statement.split(/,(?=\s*ADD\b)/i)) {
      if (/\bADD (COLUMN )?/i.test(clause) && /\bNOT NULL\b/i.test(clause))
        if (!/\b(DEFAULT|GENERATED)\b/i.test(clause) && !/\bADD (CONSTRAINT|PRIMARY)\b/i.test(clause))
          say('adds a NOT NULL column without a default: the previous release inserts rows without it');
    }
    const constraint = new RegExp(
      String.raw`^ALTER TABLE (?:ONLY )?(?:IF EXISTS )?(${NAME}) ADD (?:CONSTRAINT ${NAME} )?(CHECK|UNIQUE|PRIMARY KEY|FOREIGN KEY|EXCLUDE)\b(.*)$`,
      'i',
    ).exec(statement);
    // A foreign key's own columns, not the ones it references.
    const constrained = constraint?.[3]?.split(/\bREFERENCES\b/i)[0] ?? '';
    if (constraint?.[1] && touchesOldData(bareName(constraint[1]), namesIn(constrained)))
      say('adds a constraint over columns the previous release writes: it may refuse its rows');
    // The indexed columns only: rows of the previous release hold NULL in columns it does not know,
    // and NULLs never collide.
    const unique = new RegExp(
      `^CREATE UNIQUE INDEX (?:CONCURRENTLY )?(?:IF NOT EXISTS )?(?:${NAME} )?ON (?:ONLY )?(${NAME})(.*)$`,
      'i',
    ).exec(statement);
    if (unique?.[1] && touchesOldData(bareName(unique[1]), namesIn(firstGroup(unique[2] ?? ''))))
      say('adds a unique index over columns the previous release writes: it may refuse its rows');
    const trigger = new RegExp(`^CREATE (?:OR REPLACE )?(?:CONSTRAINT )?TRIGGER .*? ON (${NAME})`, 'i').exec(
      statement,
    );
    if (trigger?.[1] && !createdTables.has(bareName(trigger[1])))
      say('adds a trigger on a table the previous release writes: it may refuse its writes');
    if (/\bENABLE ROW LEVEL SECURITY\b|^CREATE POLICY\b/i.test(statement))
      say('restricts rows the previous release reads or writes');
  }
  return reasons;
}

/** The verdict on one migration's SQL: its own marker if it has one, else what the SQL does. */
export function migrationVerdict(sql: string): MigrationVerdict {
  const marker = MARKER.exec(sql);
  if (marker?.[1] && marker[2])
    return { mode: marker[1].toLowerCase() as UpgradeMode, reasons: [marker[2].trim()], marked: true };
  const reasons = breakingChanges(sql);
  return { mode: reasons.length > 0 ? 'stop-all' : 'rolling', reasons, marked: false };
}

/** One migration of a release: its name (the journal's tag) and its SQL. */
export interface Migration {
  tag: string;
  sql: string;
}

export interface UpgradeDecision {
  /** `refuse`: going back to a release that cannot run on the schema it would find. */
  mode: UpgradeMode | 'refuse';
  reasons: string[];
}

/**
 * How `target` replaces `running` on the instances. Forward (target has migrations running lacks):
 * stop-all when one of them says or does so. Backward (a rollback: running has migrations target
 * lacks): refused when one of them changed more than it added, marked or not — a `rolling` marker
 * vouches for the release right before it, not for an older one, which may still need what it dropped.
 */
export function upgradeDecision(running: Migration[], target: Migration[]): UpgradeDecision {
  const has = (list: Migration[], tag: string) => list.some((migration) => migration.tag === tag);
  const reasons: string[] = [];
  for (const migration of running.filter((m) => !has(target, m.tag))) {
    const changes = breakingChanges(migration.sql);
    const verdict = migrationVerdict(migration.sql);
    if (changes.length > 0 || verdict.mode === 'stop-all')
      reasons.push(
        ...(changes.length > 0 ? changes : verdict.reasons).map((why) => `${migration.tag}: ${why}`),
      );
  }
  if (reasons.length > 0) return { mode: 'refuse', reasons };
  for (const migration of target.filter((m) => !has(running, m.tag))) {
    const verdict = migrationVerdict(migration.sql);
    if (verdict.mode === 'stop-all')
      reasons.push(...verdict.reasons.map((why) => `${migration.tag}: ${why}`));
  }
  return { mode: reasons.length > 0 ? 'stop-all' : 'rolling', reasons };
}
