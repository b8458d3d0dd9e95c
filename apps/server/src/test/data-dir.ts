/**
 * Test support for the data-safety tests that run real server processes on a DATA_DIR: members
 * signed up and logged in over HTTP, the embedded database forced, and the modes under a folder.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { lstatSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { captureOutput, SERVER_DIR } from './process.js';

/** The environment without DATABASE_URL: the server uses PGlite under DATA_DIR/db on both projects. */
export function embeddedDatabaseEnv(env: Record<string, string>): Record<string, string> {
  const { DATABASE_URL: _postgres, ...embedded } = env;
  return embedded;
}

export interface Member {
  email: string;
  password: string;
}

/** Signs up `count` new members through the API (each answer must be 201). */
export async function signUpMembers(base: string, count: number): Promise<Member[]> {
  const members: Member[] = [];
  for (let index = 0; index < count; index += 1) {
    const name = `pilot${index}_${randomBytes(4).toString('hex')}`;
    const member = { email: `${name}@example.test`, password: `quiet harbour lantern ${name}` };
    const response = await fetch(`${base}/api/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...member, username: name }),
    });
    if (response.status !== 201)
      throw new Error(`sign-up answered ${response.status}: ${await response.text()}`);
    members.push(member);
  }
  return members;
}

/** The members whose login does not answer 200. */
export async function membersWhoCannotLogIn(base: string, members: Member[]): Promise<string[]> {
  const failed: string[] = [];
  for (const member of members) {
    const response = await fetch(`${base}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(member),
    });
    if (response.status !== 200) failed.push(`${member.email}: ${response.status}`);
  }
  return failed;
}

/** Every entry under `folder` (and the folder itself) that the group or others may access. */
export function entriesOpenToOthers(folder: string): string[] {
  const open: string[] = [];
  const visit = (path: string): void => {
    const stats = lstatSync(path);
    if (stats.isSymbolicLink()) return;
    if ((stats.mode & 0o077) !== 0)
      open.push(`${relative(folder, path) || '.'} ${(stats.mode & 0o777).toString(8)}`);
    if (stats.isDirectory()) for (const entry of readdirSync(path)) visit(join(path, entry));
  };
  visit(folder);
  return open;
}

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `npm run <script> -- ...args` from the repository root, as an operator types it. */
export async function runNpmScript(
  script: string,
  args: string[],
  env: Record<string, string>,
): Promise<CommandResult> {
  const child: ChildProcess = spawn('npm', ['run', '--silent', script, '--', ...args], {
    cwd: new URL('../..', SERVER_DIR),
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = captureOutput(child);
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, ...output() };
}
