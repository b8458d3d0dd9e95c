/**
 * `npm run --silent upgrade:mode -- <running release>`: how this release may replace the one in
 * <running release> (a folder of deploy/release.sh's layout) on the instances, from the migrations
 * each has that the other lacks (src/db/migration-rule.ts). Prints `rolling`, `stop-all` or
 * `refuse` on the first line, then why, one reason a line. deploy/release.sh runs it from the new
 * release before it switches.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Migration, upgradeDecision } from '../src/db/migration-rule.js';
import { MIGRATIONS_DIR } from '../src/paths.js';

/** A release's migrations, in the order drizzle applies them (its journal). */
function migrationsIn(dir: string): Migration[] {
  const journal = JSON.parse(readFileSync(join(dir, 'meta', '_journal.json'), 'utf8')) as {
    entries: { tag: string }[];
  };
  return journal.entries.map(({ tag }) => ({ tag, sql: readFileSync(join(dir, `${tag}.sql`), 'utf8') }));
}

const [running] = process.argv.slice(2);
if (!running) {
  process.stderr.write('usage: npm run upgrade:mode -- <running release folder>\n');
  process.exit(2);
}
const decision = upgradeDecision(
  migrationsIn(join(resolve(process.env.INIT_CWD ?? process.cwd(), running), 'apps', 'server', 'drizzle')),
  migrationsIn(MIGRATIONS_DIR),
);
process.stdout.write(`${[decision.mode, ...decision.reasons].join('\n')}\n`);
