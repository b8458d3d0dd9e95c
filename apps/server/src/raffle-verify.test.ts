/**
 * `npm run verify-raffle` as an operator runs it (a real process): a raffle drawn by a listening
 * server, checked by id (resolved against PUBLIC_URL), by the public page's address, by the
 * summary's and "current" addresses (the record is fetched) and from a saved record; a tampered or
 * cut-short copy fails with exit code 1.
 */
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RaffleRecord } from '@telerace/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './test/app.js';
import { authHeader, buildAdmin } from './test/factories.js';
import { listen } from './test/sockets.js';

let testApp: Awaited<ReturnType<typeof startTestApp>>;
let base: string;
let raffle: RaffleRecord;

beforeAll(async () => {
  testApp = await startTestApp();
  const { app } = testApp;
  base = `http://${await listen(app)}`;
  const headers = await authHeader(app, await buildAdmin(app.database.db));
  const post = (url: string, payload: Record<string, unknown> = {}) =>
    app.inject({ method: 'POST', url, headers, payload });
  await post('/api/admin/race/start-raffle', { racers: 2 });
  for (const [platform, platformUserId] of [
    ['twitch', 'tw-1'],
    ['discord', 'dc-2'],
    ['youtube', 'UC-3'],
  ])
    await post('/api/admin/race/raffle-entries', { platform, platformUserId, displayName: platformUserId });
  const { id } = (await post('/api/admin/race/draw-winners')).json().raffle;
  raffle = (await app.inject({ method: 'GET', url: `/api/raffles/${id}/record` })).json();
});
afterAll(() => testApp.close());

function verify(arg: string, env: Record<string, string> = {}) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ['--conditions=source', '--import', 'tsx', 'src/raffle-verify.ts', arg],
      { env: { ...process.env, ...env } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

describe('npm run verify-raffle', () => {
  it('checks out a real draw by id, by page address and from a file', async () => {
    const byId = await verify(String(raffle.id), { PUBLIC_URL: base });
    expect(byId.code, byId.stderr).toBe(0);
    expect(byId.stdout).toContain(`OK        commitment: ${raffle.commitment}`);
    expect(byId.stdout).toContain(`OK        entriesHash: ${raffle.entriesHash}`);
    expect(byId.stdout).toContain(
      `OK        winners: ${raffle.winners.map((w) => `${w.platform}:${w.platformUserId}`).join(', ')}`,
    );
    expect(byId.stdout).toContain('The draw checks out.');

    expect((await verify(`${base}/raffles/${raffle.id}`)).code).toBe(0);
    expect((await verify(`${base}/api/raffles/${raffle.id}`)).code).toBe(0);
    expect((await verify(`${base}/api/raffles/current`)).code).toBe(0);

    const file = join(testApp.environment.dataDir, 'raffle.json');
    await writeFile(file, JSON.stringify(raffle));
    expect((await verify(file)).code).toBe(0);
  });

  it('fails a tampered copy (exit 1, MISMATCH) and an unreachable source', async () => {
    const file = join(testApp.environment.dataDir, 'tampered.json');
    const entries = raffle.entries.map((e, i) => (i === 0 ? { ...e, weight: e.weight + 1 } : e));
    await writeFile(file, JSON.stringify({ ...raffle, entries }));
    const tampered = await verify(file);
    expect(tampered.code).toBe(1);
    expect(tampered.stdout).toMatch(/^MISMATCH {2}entriesHash: published /m);
    expect(tampered.stdout).toContain('The draw does NOT check out.');

    // A summary saved instead of the record (no entries) is not the list drawn from.
    const summary = join(testApp.environment.dataDir, 'summary.json');
    await writeFile(summary, JSON.stringify({ ...raffle, entries: raffle.entries.slice(1) }));
    const cut = await verify(summary);
    expect(cut.code).toBe(1);
    expect(cut.stdout).toMatch(/^MISMATCH {2}format: published 3 entries, computed 2 listed/m);

    const missing = await verify(join(testApp.environment.dataDir, 'nothing.json'));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('Could not read the raffle');
  });
});
