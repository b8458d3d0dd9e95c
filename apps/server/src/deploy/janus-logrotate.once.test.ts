/**
 * deploy/logrotate/telerace-janus on the log of a real Janus started as the server starts its own
 * (JanusSupervisor: `-L DATA_DIR/janus/janus.log`), with the test's DATA_DIR and user in place of
 * the unit's. Janus keeps its log open for good: what is written after a rotation must land at the
 * start of the emptied file, not after a hole the size of the old log.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { findJanusBinary, JanusSupervisor } from '../modules/video/janus-process.js';
import { quietLogger } from '../test/quiet-logger.js';

const run = promisify(execFile);
const SHIPPED = resolve(import.meta.dirname, '../../../../deploy/logrotate/telerace-janus');
const LOGROTATE = '/usr/sbin/logrotate';

/** A line Janus logs at its default level, here a new session created over its REST API. */
async function makeJanusLog(janus: JanusSupervisor): Promise<void> {
  const response = await fetch(janus.httpUrl, {
    method: 'POST',
    body: JSON.stringify({ janus: 'create', transaction: 'logrotate-test' }),
  });
  expect(((await response.json()) as { janus: string }).janus).toBe('success');
}

/** The file's text, once it has a line matching `pattern` (Janus writes its log as it goes). */
function waitForLine(file: string, pattern: RegExp): Promise<string> {
  return vi.waitFor(
    async () => {
      const text = await readFile(file, 'utf8');
      expect(text).toMatch(pattern);
      return text;
    },
    { timeout: 10_000, interval: 50 },
  );
}

describe.skipIf(!findJanusBinary() || !existsSync(LOGROTATE))('deploy/logrotate/telerace-janus', () => {
  let dataDir: string;
  let janus: JanusSupervisor;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'telerace-janus-log-'));
    janus = new JanusSupervisor({ dataDir, log: quietLogger() });
    await janus.start();
  }, 60_000);
  afterAll(async () => {
    await janus?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('rotates the running Janus’s log, which goes on at the start of the emptied file', async () => {
    const log = join(dataDir, 'janus', 'janus.log');
    const before = await waitForLine(log, /JANUS REST .* transport plugin initialized/);
    expect(before).toMatch(/JANUS REST .* transport plugin initialized/);

    const shipped = await readFile(SHIPPED, 'utf8');
    const config = join(dataDir, 'logrotate.conf');
    const { username } = userInfo();
    await writeFile(
      config,
      shipped
        .replace('/var/lib/telerace/janus/janus.log', log)
        .replace('su telerace telerace', `su ${username} ${username}`),
    );
    // -f: as on a day the log is due.
    await run(LOGROTATE, ['-f', '-s', join(dataDir, 'logrotate.state'), config]);

    expect((await readFile(`${log}.1`, 'utf8')).startsWith(before)).toBe(true);
    await makeJanusLog(janus);
    const after = await waitForLine(log, /Creating new session/);
    expect(after).toMatch(/Creating new session/);
    // No hole of NUL bytes where the old log was: Janus appends.
    expect(after).not.toContain('\0');
    expect(after).not.toContain(before);
  });
});
