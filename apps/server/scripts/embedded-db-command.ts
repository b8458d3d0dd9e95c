/**
 * What `npm run backup` and `npm run restore` share: the arguments, DATA_DIR read as the server
 * reads it, private file modes, and errors as one line without a stack (exit code 1).
 */
import { isAbsolute, resolve } from 'node:path';
import { dataDirFrom } from '../src/config.js';
import { DataDirInUseError } from '../src/db/data-dir-lock.js';
import { BackupError, type BackupOptions } from '../src/db/embedded-backup.js';

export async function runEmbeddedDbCommand(
  name: 'backup' | 'restore',
  command: (options: BackupOptions) => Promise<string>,
): Promise<void> {
  // The backup holds password hashes: only this user may read what is written.
  process.umask(0o077);
  const print = (line: string) => process.stdout.write(`${line}\n`);
  try {
    const options = parseArguments(name, process.argv.slice(2), process.env);
    print(await command({ ...options, print }));
  } catch (error) {
    const known = error instanceof BackupError || error instanceof DataDirInUseError;
    process.stderr.write(
      `${name} failed: ${known ? error.message : String((error as Error).message ?? error)}\n`,
    );
    process.exit(1);
  }
}

function parseArguments(
  name: 'backup' | 'restore',
  args: string[],
  env: NodeJS.ProcessEnv,
): Omit<BackupOptions, 'print'> {
  const force = args.includes('--force');
  const files = args.filter((arg) => arg !== '--force');
  const unknown = files.find((arg) => arg.startsWith('--'));
  if (files.length !== 1 || unknown !== undefined)
    throw new BackupError(`usage: npm run ${name} -- <file.tar.gz> [--force]`);
  if (env.DATABASE_URL)
    throw new BackupError(
      `DATABASE_URL is set: the server uses that PostgreSQL database, which pg_dump/pg_restore back up; npm run ${name} is for the embedded database in DATA_DIR/db`,
    );
  const file = files[0] as string;
  // npm runs scripts from the repository root: a relative file is where the operator typed it.
  const cwd = env.INIT_CWD ?? process.cwd();
  return { dataDir: dataDirFrom(env), file: isAbsolute(file) ? file : resolve(cwd, file), force };
}
