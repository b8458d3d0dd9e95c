/**
 * The embedded database's disk fills (docs/reliability.md, fault 2), with a real server process
 * whose DATA_DIR is a small disk of the test's own. While the disk is full, a write is refused
 * whole with a clear answer (503 `errors.storageFull`, Retry-After) and the server stays up; what
 * was written before is all there; once space returns, writes succeed again without a restart.
 * (That PGlite keeps what it committed across a restart is data-dir.embedded.test.ts's.)
 */
import type { ChildProcess } from 'node:child_process';
import { ERROR_KEYS } from '@telerace/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFRESH_COOKIE } from '../modules/auth/session-cookies.js';
import { createTestEnvironment, seedMigratedDatabase, type TestEnvironment } from '../test/app.js';
import { apiCall, killProcess, logIn, serverProcessSettings, startReadyServer } from '../test/process.js';
import { mountSmallDisk, type SmallDisk } from '../test/small-disk.js';

const ADMIN = { email: 'disk-admin@telerace.test', password: 'disk-admin-Passw0rd!' };
const member = (n: number) => ({
  email: `disk-member-${n}@telerace.test`,
  username: `diskmember${n}`,
  password: `disk-member-${n}-Passw0rd!`,
});
const MAX_REFRESHES = 1_000;

/** The refresh cookie (`name=value`) a response sets, if any. */
function refreshCookieOf(response: Response): string | undefined {
  return response.headers
    .getSetCookie()
    .map((header) => header.split(';')[0] as string)
    .find((pair) => pair.startsWith(`${REFRESH_COOKIE}=`) && pair !== `${REFRESH_COOKIE}=`);
}

async function signedInCookie(
  base: string,
  credentials: { email: string; password: string },
): Promise<string> {
  const response = await fetch(`${base}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...credentials, recaptchaToken: '' }),
  });
  const cookie = refreshCookieOf(response);
  if (!cookie) throw new Error(`no session cookie from login (${response.status})`);
  return cookie;
}

const refresh = (base: string, cookie: string) =>
  fetch(`${base}/api/refresh-token`, { method: 'POST', headers: { cookie } });

describe('the embedded database on a disk that fills up', () => {
  let environment: TestEnvironment;
  let disk: SmallDisk;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    disk = await mountSmallDisk(160);
    // Hundreds of saves from one address: the per-IP API limit is not what this test is about.
    environment = await createTestEnvironment({ DATA_DIR: disk.path, API_RATE_LIMIT_PER_MINUTE: '100000' });
  });
  afterAll(async () => {
    for (const child of children) await killProcess(child);
    await environment?.dispose();
    await disk?.dispose();
  });

  it('refuses writes cleanly while full, loses nothing, and writes again once space returns', async () => {
    const { base, env } = await serverProcessSettings(environment.env, ADMIN);
    await seedMigratedDatabase(env);
    const server = await startReadyServer(env, base);
    children.push(server);
    const saveBio = (token: string, bio: string) =>
      fetch(`${base}/api/me`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ bio, avatar_url: null }),
      });
    await apiCall(base, 'POST', '/signup', { ...member(1), recaptchaToken: '' });
    const token = await logIn(base, member(1));
    expect((await saveBio(token, 'written before the disk filled')).status).toBe(200);

    disk.fill();
    // Each refresh writes the session's next token (a new row): refresh until one needs room the
    // disk no longer has.
    let cookie = await signedInCookie(base, member(1));
    let refused: Response | undefined;
    let attempts = 0;
    const filledAt = performance.now();
    for (; attempts < MAX_REFRESHES && !refused; attempts += 1) {
      const response = await refresh(base, cookie);
      if (response.status === 200) cookie = refreshCookieOf(response) ?? cookie;
      else refused = response;
    }
    console.info(
      `disk full: refresh ${attempts} refused after ${(performance.now() - filledAt).toFixed(0)} ms`,
    );
    expect(refused, `a refresh refused within ${MAX_REFRESHES}`).toBeDefined();
    expect(refused?.status).toBe(503);
    expect(refused?.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await refused?.json()).toMatchObject({ errorKey: ERROR_KEYS.storageFull });
    // Not signed out by it: the refusal leaves the session cookie alone.
    expect(refused?.headers.get('set-cookie')).toBeNull();
    // Up and reading: the member's account answers while the disk is full.
    expect((await fetch(`${base}/api/me`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(
      200,
    );
    expect(server.exitCode).toBeNull();

    await disk.free();
    // The same session goes on, and writes succeed again.
    expect((await refresh(base, cookie)).status).toBe(200);
    expect((await saveBio(token, 'written after space returned')).status).toBe(200);
    await apiCall(base, 'POST', '/signup', { ...member(2), recaptchaToken: '' });

    // Everything is there: the first member's last save, and a second member signed up since.
    await logIn(base, member(2));
    const me = await apiCall<{ user: { bio: string } }>(base, 'GET', '/me', undefined, token);
    expect(me.user.bio).toBe('written after space returned');
  }, 120_000);
});
