/**
 * The real Janus (Debian `janus`): the supervisor starts it on fresh ports under a fresh temp
 * DATA_DIR, the client creates/lists/destroys mountpoints, a killed Janus is restarted, and stop()
 * leaves no process behind. Janus is a test dependency: missing, the file fails.
 */
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { alive, processesMentioning } from '../../test/process.js';
import { quietLogger } from '../../test/quiet-logger.js';
import { JanusClient, JanusError } from './janus-client.js';
import { findJanusBinary, findJanusLibDir, JanusSupervisor } from './janus-process.js';

// Janus is a test dependency (scripts/lib/system.mjs installs it): missing is a failure, not a skip.
if (findJanusBinary() === null || findJanusLibDir() === null) {
  throw new Error('Janus is not installed: apt-get install -y --no-install-recommends janus');
}

async function janusCode(promise: Promise<unknown>): Promise<number> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof JanusError) return error.code;
    throw error;
  }
  throw new Error('Janus accepted the request');
}

describe('Janus supervisor and streaming client (real Janus)', () => {
  let dataDir: string;
  let supervisor: JanusSupervisor;
  let client: JanusClient;
  const RTP: [number, number] = [0, 0];

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'telerace-janus-'));
    supervisor = new JanusSupervisor({ dataDir, log: quietLogger() });
    await supervisor.start();
    client = new JanusClient(supervisor.httpUrl, supervisor.adminKey);
    const range = /rtp_port_range = "(\d+)-(\d+)"/.exec(
      readFileSync(join(supervisor.configDir, 'janus.jcfg'), 'utf8'),
    );
    RTP[0] = Number(range?.[1]);
    RTP[1] = Number(range?.[2]);
  });

  afterEach(async () => {
    await supervisor.stop();
    for (const pid of processesMentioning(dataDir)) process.kill(pid, 'SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  });

  it('starts Janus on loopback ports, with only the streaming plugin', async () => {
    expect(supervisor.httpUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/janus$/);
    expect(supervisor.wsUrl).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/);
    const info = (await (await fetch(`${supervisor.httpUrl}/info`)).json()) as {
      janus: string;
      plugins: Record<string, unknown>;
    };
    expect(info.janus).toBe('server_info');
    expect(Object.keys(info.plugins)).toEqual(['janus.plugin.streaming']);
    expect(RTP[1] - RTP[0]).toBe(999);
  });

  it('creates a mountpoint with a pin on a port of its range, lists and destroys it', async () => {
    const { port } = await client.createMountpoint({
      id: 4101,
      pin: 'pin-1',
      secret: 'sec-1',
      codec: 'h264',
    });
    expect(Number.isInteger(port)).toBe(true);
    expect(port).toBeGreaterThanOrEqual(RTP[0]);
    expect(port).toBeLessThanOrEqual(RTP[1]);
    expect((await client.listMountpoints()).map((m) => m.id)).toContain(4101);
    const info = await client.info(4101, 'sec-1');
    expect(info.pin).toBe('pin-1');

    await client.destroyMountpoint(4101, 'sec-1');
    expect((await client.listMountpoints()).map((m) => m.id)).not.toContain(4101);
    expect(await janusCode(client.info(4101, 'sec-1'))).toBe(455); // no such mountpoint
  });

  it('offers constrained-baseline H.264 at level 4 (1280×720 at 60 fps) and a playout delay a viewer sets to none', async () => {
    await client.createMountpoint({ id: 4106, pin: 'p6', secret: 's6', codec: 'h264' });
    const { session, handle, close } = await client.openHandle();
    try {
      await client.message(session, handle, { request: 'watch', id: 4106, pin: 'p6' });
      const offer = (await client.nextEvent(session)) as { jsep?: { type?: string; sdp?: string } };
      expect(offer.jsep?.type).toBe('offer');
      expect(offer.jsep?.sdp).toMatch(/^a=fmtp:96 .*profile-level-id=42e028/m);
      expect(offer.jsep?.sdp).toMatch(
        /^a=extmap:\d+ http:\/\/www\.webrtc\.org\/experiments\/rtp-hdrext\/playout-delay/m,
      );
      await client.message(session, handle, { request: 'configure', min_delay: 0, max_delay: 0 });
      const configured = await client.nextEvent(session);
      expect(configured.plugindata?.data).toMatchObject({ result: { event: 'configured' } });
    } finally {
      await close();
    }
    await client.destroyMountpoint(4106, 's6');
  });

  it('refuses a second mountpoint with the same id (456), which the server then replaces', async () => {
    await client.createMountpoint({ id: 4105, pin: 'p5', secret: 's5', codec: 'h264' });
    expect(await janusCode(client.createMountpoint({ id: 4105, pin: 'p', secret: 's', codec: 'h264' }))).toBe(
      456,
    );
    await client.destroyMountpoint(4105, 's5');
  });

  it('refuses to create a mountpoint without the admin key (453) or with a wrong one (457)', async () => {
    const options = { id: 4102, pin: 'p', secret: 's', codec: 'h264' } as const;
    expect(await janusCode(new JanusClient(supervisor.httpUrl, null).createMountpoint(options))).toBe(453);
    expect(await janusCode(new JanusClient(supervisor.httpUrl, 'wrong').createMountpoint(options))).toBe(457);
    expect((await client.listMountpoints()).map((m) => m.id)).not.toContain(4102);
  });

  it('refuses to watch with a wrong pin (457), and destroy with a wrong secret', async () => {
    await client.createMountpoint({ id: 4103, pin: 'right-pin', secret: 'sec-3', codec: 'h264' });
    const { session, handle, close } = await client.openHandle();
    try {
      const ack = await client.message(session, handle, { request: 'watch', id: 4103, pin: 'wrong-pin' });
      expect(ack.janus).toBe('ack');
      const event = await client.nextEvent(session);
      expect(event.janus).toBe('event');
      expect(event.plugindata?.data).toMatchObject({ error_code: 457 });
    } finally {
      await close();
    }
    expect(await janusCode(client.destroyMountpoint(4103, 'wrong-secret'))).toBe(457);
    expect((await client.listMountpoints()).map((m) => m.id)).toContain(4103);
  });

  it('restarts a killed Janus, emits restarted, and the mountpoint can be re-created', async () => {
    await client.createMountpoint({ id: 4104, pin: 'p4', secret: 's4', codec: 'h264' });
    const firstPid = supervisor.pid;
    if (firstPid === undefined) throw new Error('no pid');
    const restarted = once(supervisor, 'restarted');
    process.kill(firstPid, 'SIGKILL');
    await restarted;
    expect(alive(firstPid)).toBe(false);
    expect(supervisor.pid).toBeDefined();
    expect(supervisor.pid).not.toBe(firstPid);

    // Mountpoints made at run time are gone after a restart; the server re-creates them.
    expect((await client.listMountpoints()).map((m) => m.id)).not.toContain(4104);
    const { port } = await client.createMountpoint({ id: 4104, pin: 'p4', secret: 's4', codec: 'h264' });
    expect(port).toBeGreaterThanOrEqual(RTP[0]);
    expect((await client.listMountpoints()).map((m) => m.id)).toContain(4104);
  });

  it('stop() leaves no janus process behind and does not restart it', async () => {
    const pid = supervisor.pid;
    if (pid === undefined) throw new Error('no pid');
    let restarts = 0;
    supervisor.on('restarted', () => {
      restarts += 1;
    });
    await supervisor.stop();
    await expect
      .poll(() => alive(pid), { timeout: 10_000, interval: 50, message: 'janus to exit' })
      .toBe(false);
    expect(supervisor.pid).toBeUndefined();
    expect(processesMentioning(dataDir)).toEqual([]);
    expect(restarts).toBe(0);
  });
});
