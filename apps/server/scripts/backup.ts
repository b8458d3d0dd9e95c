/**
 * `npm run backup -- <file.tar.gz> [--force]`: a copy of the embedded database (DATA_DIR/db) while
 * the server is stopped. See docs/operations.md.
 */
import { backupEmbeddedDatabase } from '../src/db/embedded-backup.js';
import { runEmbeddedDbCommand } from './embedded-db-command.js';

await runEmbeddedDbCommand('backup', async (options) => {
  const { accounts, bytes } = await backupEmbeddedDatabase(options);
  const what = accounts === null ? 'the database' : `${accounts} accounts`;
  return `Backup done: ${what}, ${(bytes / 1_048_576).toFixed(1)} MB in ${options.file} (restore it with npm run restore -- ${options.file})`;
});
