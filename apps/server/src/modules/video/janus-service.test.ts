/**
 * Janus as its own service (docs/video.md "Janus as its own service"): the files
 * `npm run janus:config` writes from the servers' settings load in the real Janus, started with
 * deploy/systemd/janus.service's own command line, and do what the settings say — only the
 * streaming plugin, listening where JANUS_URL and JANUS_API_URL say, mountpoints created only with
 * JANUS_ADMIN_KEY on a port of JANUS_RTP_PORTS, JANUS_PUBLIC_IP announced to viewers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSocket } from '../../test/sockets.js';
import { type JanusService, startJanusService } from '../../test/video.js';
import { JanusClient, JanusError } from './janus-client.js';

const PUBLIC_IP = '203.0.113.10';

async function janusCode(promise: Promise<unknown>): Promise<number> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof JanusError) return error.code;
    throw error;
  }
  throw new Error('Janus accepted the request');
}

describe('Janus as its own service, on the files npm run janus:config writes', () => {
  let janus: JanusService;

  beforeAll(async () => {
    janus = await startJanusService({ JANUS_PUBLIC_IP: PUBLIC_IP });
  }, 60_000);
  afterAll(() => janus?.dispose());

  it('loads only the streaming plugin and the two transports, where JANUS_URL and JANUS_API_URL say', async () => {
    const info = (await (await fetch(`${janus.httpUrl}/info`)).json()) as {
      plugins: Record<string, unknown>;
      transports: Record<string, unknown>;
    };
    expect(Object.keys(info.plugins)).toEqual(['janus.plugin.streaming']);
    expect(Object.keys(info.transports).sort()).toEqual([
      'janus.transport.http',
      'janus.transport.websockets',
    ]);
    const socket = await openSocket(janus.env.JANUS_URL ?? '', {}, 'janus-protocol');
    socket.send({ janus: 'create', transaction: 'c1' });
    expect(await socket.next((m) => m.transaction === 'c1', 10_000)).toMatchObject({ janus: 'success' });
    await socket.close();
  });

  it('creates a mountpoint with JANUS_ADMIN_KEY only, on a port of JANUS_RTP_PORTS, and offers it from JANUS_PUBLIC_IP', async () => {
    const options = { id: 4201, pin: 'pin-4201', secret: 'secret-4201', codec: 'h264' } as const;
    expect(await janusCode(new JanusClient(janus.httpUrl, null).createMountpoint(options))).toBe(453);
    expect(await janusCode(new JanusClient(janus.httpUrl, 'not-the-key').createMountpoint(options))).toBe(
      457,
    );

    const { port } = await janus.admin.createMountpoint(options);
    expect(port).toBeGreaterThanOrEqual(janus.rtpPorts[0]);
    expect(port).toBeLessThanOrEqual(janus.rtpPorts[1]);
    expect((await janus.admin.listMountpoints()).map((m) => m.id)).toContain(4201);

    // A viewer's offer: its ICE candidates carry the public address, not the machine's own.
    const { session, handle, close } = await janus.admin.openHandle();
    try {
      await janus.admin.message(session, handle, { request: 'watch', id: 4201, pin: options.pin });
      let sdp = '';
      while (!sdp) {
        const event = (await janus.admin.nextEvent(session)) as { jsep?: { sdp?: string } };
        sdp = event.jsep?.sdp ?? '';
      }
      const candidates = sdp.split(/\r?\n/).filter((line) => line.startsWith('a=candidate:'));
      expect(candidates.length).toBeGreaterThan(0);
      expect(
        candidates.every((line) => line.includes(` ${PUBLIC_IP} `)),
        candidates.join('\n'),
      ).toBe(true);
      for (const line of candidates) {
        const candidatePort = Number(line.split(' ')[5]);
        expect(candidatePort).toBeGreaterThanOrEqual(janus.rtpPorts[0]);
        expect(candidatePort).toBeLessThanOrEqual(janus.rtpPorts[1]);
      }
    } finally {
      await close();
    }
    await janus.admin.destroyMountpoint(4201, options.secret);
  });
});
