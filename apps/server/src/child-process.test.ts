/**
 * The supervisor with real child processes (small `node -e` programs): restarts on the shared
 * backoff, measured on a manual clock; an exit code that asks for a restart; a healthy run that
 * starts the backoff over; the output lines logged; stop with SIGTERM, then SIGKILL.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import type { FastifyBaseLogger } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { SupervisedProcess, type SupervisedProcessOptions } from './child-process.js';
import { ManualClock } from './test/clock.js';

interface LogEntry {
  level: string;
  fields: Record<string, unknown>;
  message: string;
}

function recordingLogger(entries: LogEntry[]): FastifyBaseLogger {
  const at =
    (level: string) =>
    (fields: Record<string, unknown>, message: string): void => {
      entries.push({ level, fields, message });
    };
  const logger = {
    level: 'debug',
    fatal: at('fatal'),
    error: at('error'),
    warn: at('warn'),
    info: at('info'),
    debug: at('debug'),
    trace: at('trace'),
    silent: () => {},
    child: () => logger,
  };
  return logger as unknown as FastifyBaseLogger;
}

const supervised: SupervisedProcess[] = [];
afterEach(async () => {
  await Promise.all(supervised.splice(0).map((process) => process.stop()));
});

function supervise(script: string, options: Partial<SupervisedProcessOptions> = {}) {
  const clock = new ManualClock();
  const log: LogEntry[] = [];
  const process = new SupervisedProcess({
    name: 'test child',
    command: globalThis.process.execPath,
    args: ['-e', script],
    log: recordingLogger(log),
    killGraceMs: 200,
    clock,
    ...options,
  });
  supervised.push(process);
  const spawned: ChildProcess[] = [];
  process.on('spawn', (child) => spawned.push(child));
  return { process, clock, log, spawned };
}

const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : once(child, 'exit').then(() => {});

describe('SupervisedProcess', () => {
  it('restarts a child that exits on its own after 250 ms, doubling up to 30 s', async () => {
    const { process, clock, spawned, log } = supervise('process.exit(3)');
    process.start();
    const waits: number[] = [];
    for (let restart = 0; restart < 9; restart += 1) {
      const child = spawned.at(-1) as ChildProcess;
      await exited(child);
      const expected = Math.min(30_000, 250 * 2 ** restart);
      clock.advance(expected - 1);
      expect(spawned).toHaveLength(restart + 1);
      clock.advance(1);
      expect(spawned).toHaveLength(restart + 2);
      waits.push(expected);
    }
    expect(waits).toEqual([250, 500, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000]);
    const exits = log.filter((entry) => entry.message === 'test child exited');
    expect(exits[0]?.level).toBe('warn');
    expect(exits.slice(0, 9).map((entry) => entry.fields.restartInMs)).toEqual(waits);
    expect(exits[0]?.fields.code).toBe(3);
  });

  it('an exit code the child asks a restart with: back after 100 ms, and the backoff starts over', async () => {
    const { process, clock, spawned } = supervise('process.exit(Number(process.env.CODE))', {
      env: { ...globalThis.process.env, CODE: '75' },
      restartExitCodes: [75],
    });
    process.start();
    for (let restart = 0; restart < 3; restart += 1) {
      await exited(spawned.at(-1) as ChildProcess);
      clock.advance(99);
      expect(spawned).toHaveLength(restart + 1);
      clock.advance(1);
      expect(spawned).toHaveLength(restart + 2);
    }
  });

  it('a child that ran 30 s was healthy: its next crash restarts after 250 ms again', async () => {
    const { process, clock, spawned } = supervise('setTimeout(() => process.exit(1), 200)');
    process.start();
    await exited(spawned[0] as ChildProcess);
    clock.advance(250);
    await exited(spawned[1] as ChildProcess);
    clock.advance(500);
    expect(spawned).toHaveLength(3);
    // The third child runs 30 s on the clock before it exits: the backoff starts over.
    clock.advance(30_000);
    await exited(spawned[2] as ChildProcess);
    clock.advance(249);
    expect(spawned).toHaveLength(3);
    clock.advance(1);
    expect(spawned).toHaveLength(4);
  });

  it('logs each output line under its name, at the level asked', async () => {
    const { process, log } = supervise('console.log("hello"); console.error("oops")', {
      outputLevel: 'debug',
    });
    const child = process.start();
    await exited(child);
    await new Promise((resolve) => setImmediate(resolve));
    const lines = log.filter((entry) => entry.message === 'test child');
    expect(lines.map((entry) => [entry.level, entry.fields.output]).sort()).toEqual([
      ['debug', 'hello'],
      ['debug', 'oops'],
    ]);
  });

  it('stop ends the child with SIGTERM and never restarts it', async () => {
    const { process, clock, spawned } = supervise('setInterval(() => {}, 1000)');
    const child = process.start();
    await process.stop();
    expect(child.signalCode).toBe('SIGTERM');
    expect(process.child).toBeUndefined();
    clock.advance(60_000);
    expect(spawned).toHaveLength(1);
  });

  it('stop cancels a pending restart', async () => {
    const { process, clock, spawned } = supervise('process.exit(1)');
    process.start();
    await exited(spawned[0] as ChildProcess);
    await process.stop();
    clock.advance(60_000);
    expect(spawned).toHaveLength(1);
  });

  it('a child that ignores SIGTERM is killed after the grace period', async () => {
    const { process } = supervise(
      'process.on("SIGTERM", () => {}); console.log("ready"); setInterval(() => {}, 1000)',
    );
    const child = process.start();
    await once(child.stdout as NodeJS.ReadableStream, 'data');
    await process.stop();
    expect(child.signalCode).toBe('SIGKILL');
  });
});
