import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ephemeralRangeStart, freeLoopbackPort } from './free-port.js';

describe('freeLoopbackPort', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
  });

  it('hands on a port below the kernel’s ephemeral range that another process can listen on', async () => {
    const start = ephemeralRangeStart();
    for (let i = 0; i < 20; i += 1) {
      const port = await freeLoopbackPort();
      expect(port).toBeGreaterThanOrEqual(20_000);
      expect(port).toBeLessThan(start);
      const server = createServer();
      servers.push(server);
      // Held while the next ports are picked: none of them may be a port in use.
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', resolve);
      });
    }
    expect(new Set(servers.map((server) => (server.address() as { port: number }).port)).size).toBe(20);
  });
});

describe('ephemeralRangeStart', () => {
  const dir = mkdtempSync(join(tmpdir(), 'telerace-ports-'));
  afterEach(() => rmSync(join(dir, 'range'), { force: true }));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const range = (text: string) => {
    writeFileSync(join(dir, 'range'), text);
    return ephemeralRangeStart(join(dir, 'range'));
  };

  it('reads the first number of ip_local_port_range', () => {
    expect(range('32768\t60999\n')).toBe(32_768);
    expect(range('49152 65535')).toBe(49_152);
  });

  it('falls back to the kernel default when the file is missing or unreadable', () => {
    expect(ephemeralRangeStart(join(dir, 'absent'))).toBe(32_768);
    expect(range('')).toBe(32_768);
    expect(range('many ports')).toBe(32_768);
  });
});
