/**
 * `npm run restore -- <file.tar.gz> [--force]`: puts a backup made by `npm run backup` back into
 * DATA_DIR/db while the server is stopped; an existing database is replaced only with --force and
 * kept aside. See docs/operations.md.
 */
import { join } from 'node:path';
import { DB_FOLDER, restoreEmbeddedDatabase } from '../src/db/embedded-backup.js';
import { runEmbeddedDbCommand } from './embedded-db-command.js';

await runEmbeddedDbCommand('restore', async (options) => {
  const { accounts } = await restoreEmbeddedDatabase(options);
  const what = accounts === null ? 'the database' : `${accounts} accounts`;
  return `Restore done: ${what} from ${options.file} in ${join(options.dataDir, DB_FOLDER)}; start the server`;
});
