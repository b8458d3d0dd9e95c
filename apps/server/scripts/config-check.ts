/**
 * `npm run config:check [-- <env file> [NAME=value …]]`: loads the configuration as the server
 * does and lists every problem, without starting anything (docs/operations.md "The settings").
 * Without a file it checks this shell's environment, as `npm start` would get it; with one, only
 * the file's variables read as systemd's EnvironmentFile= reads them, then the NAME=value
 * arguments (what the unit's ExecStart sets on its command line). Exit code 1 on a problem. (Not
 * `--env-file`: Node.js takes that option for itself wherever it appears.)
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { type ConfigCheck, checkEnvFile, checkEnvironment } from '../src/config/check.js';
import { decodeEnvFile } from '../src/config/env-file.js';

const USAGE = 'usage: npm run config:check [-- <env file> [NAME=value …]]';

function fail(message: string): never {
  process.stderr.write(`config:check: ${message}\n`);
  process.exit(1);
}

function check(args: string[]): { source: string; result: ConfigCheck } {
  if (args.length === 0) return { source: 'the environment', result: checkEnvironment(process.env) };
  const [path, ...assignments] = args as [string, ...string[]];
  if (path.startsWith('-') || path.includes('=')) fail(USAGE);
  const commandLine: Record<string, string> = {};
  for (const assignment of assignments) {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(assignment);
    if (!match) fail(`${JSON.stringify(assignment)} is not NAME=value; ${USAGE}`);
    commandLine[match[1] as string] = match[2] as string;
  }
  // npm runs scripts from the repository root: a relative file is where the operator typed it.
  const file = isAbsolute(path) ? path : resolve(process.env.INIT_CWD ?? process.cwd(), path);
  let text: string;
  try {
    text = decodeEnvFile(readFileSync(file));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    fail(
      code === undefined
        ? `${file} is not UTF-8 text: systemd refuses it and the unit does not start`
        : `${file} cannot be read (${code}): systemd would not start the unit either`,
    );
  }
  return { source: file, result: checkEnvFile(text, commandLine) };
}

const { source, result } = check(process.argv.slice(2));
for (const warning of result.warnings) process.stdout.write(`warning: ${warning}\n`);
for (const problem of result.problems) process.stdout.write(`problem: ${problem}\n`);
if (result.problems.length > 0) {
  fail(`${result.problems.length} problem(s) in ${source}: the server would refuse to start`);
}
const database = result.database === 'postgres' ? 'PostgreSQL (DATABASE_URL)' : 'the embedded database';
process.stdout.write(
  `config:check: ${source} is a valid configuration (${database}), ${result.warnings.length} warning(s)\n`,
);
