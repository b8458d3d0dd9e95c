/**
 * `npm run config:check`: the configuration loaded exactly as the server loads it — from the
 * environment, or from an environment file read as systemd's EnvironmentFile= reads it — with
 * every problem listed, and nothing started or written (a dry run: see LoadOptions).
 */

import { ConfigError, settingsOf } from './define.js';
import { type EnvFileNote, parseEnvFile } from './env-file.js';
import { CONFIG_SECTIONS, loadConfig } from './load.js';

export interface ConfigCheck {
  /** What makes the server refuse to start, one a line, secrets never echoed. */
  problems: string[];
  /** What it would start with, probably not as meant (a typo in a name, a line systemd drops). */
  warnings: string[];
  /** `postgres` or `pglite`, when the configuration loads. */
  database: 'postgres' | 'pglite' | null;
}

const KNOWN = new Set(settingsOf(CONFIG_SECTIONS).map((entry) => entry.env));
/** Read by Node.js, libuv or the C library rather than by the server's settings table. */
const RUNTIME_VARIABLE = /^(NODE_|UV_|LC_)|^(TZ|LANG|PATH|HOME)$/;

/** Checks an environment as `npm start` would get it. */
export function checkEnvironment(env: Record<string, string | undefined>): ConfigCheck {
  try {
    const config = loadConfig(env, { dryRun: true });
    return { problems: [], warnings: [], database: config.databaseUrl === null ? 'pglite' : 'postgres' };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return { problems: [...error.problems], warnings: [], database: null };
  }
}

/**
 * Checks the environment a unit with `EnvironmentFile=<file>` gives the server: the file's
 * variables as systemd reads them, then `commandLine` (what the unit's ExecStart sets with env(1),
 * which wins over the file). Nothing of the caller's own environment is used.
 */
export function checkEnvFile(text: string, commandLine: Record<string, string> = {}): ConfigCheck {
  const file = parseEnvFile(text);
  const result = checkEnvironment({ ...file.values, ...commandLine });
  const unknown = Object.keys(file.values)
    .filter((name) => !KNOWN.has(name) && !RUNTIME_VARIABLE.test(name))
    .map((name) => `${name} is not a Telerace setting (a typo?): the server ignores it`);
  return { ...result, warnings: [...file.notes.map(describeNote), ...unknown] };
}

const describeNote = (note: EnvFileNote): string => `line ${note.line}: ${note.message}`;
