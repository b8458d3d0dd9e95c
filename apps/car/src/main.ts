#!/usr/bin/env node
/**
 * The car agent's entry point: the program that runs on each RC car (a Raspberry Pi) or
 * simulates one, `telerace-car` once installed from its package (scripts/pack.mjs). Parses the
 * command line, opens the chosen drive backend, starts the agent, and on SIGINT/SIGTERM puts the
 * car in neutral before exiting.
 */
import { readFileSync } from 'node:fs';
import { CarAgent } from './agent.js';
import { AGENT_VERSION, parseCli, USAGE } from './cli.js';
import { runDoctor } from './doctor/run.js';
import type { DriveBackend } from './drive/backend.js';
import { openPca9685 } from './drive/pca9685.js';
import { openPigpio } from './drive/pigpio.js';
import { SimBackend } from './drive/sim.js';
import type { AgentSettings } from './settings.js';
import { SimCar } from './sim/sim-car.js';
import { createVideoStreamer } from './video/streamer.js';
import { wifiTelemetry } from './wifi.js';

function log(line: string): void {
  console.info(`${new Date().toISOString()} ${line}`);
}

async function openBackend(settings: AgentSettings): Promise<DriveBackend> {
  switch (settings.drive) {
    case 'pca9685':
      return openPca9685(settings.pca9685);
    case 'pigpio':
      return openPigpio(settings.pigpio);
    case 'sim': {
      const backend = new SimBackend(new SimCar(undefined, undefined, { assist: settings.assist }));
      backend.car.start();
      return backend;
    }
  }
}

async function main(): Promise<void> {
  const cli = parseCli(process.argv.slice(2), process.env, (path) => readFileSync(path, 'utf8'));
  if (cli.kind === 'help') return console.info(USAGE);
  if (cli.kind === 'version') return console.info(AGENT_VERSION);
  if (cli.kind === 'error') {
    console.error(`car agent: ${cli.message} (see --help)`);
    process.exit(2);
  }
  if (cli.kind === 'doctor') {
    const code = await runDoctor(cli.settings, { quick: cli.quick, print: (line) => console.info(line) });
    process.exit(code);
  }
  const { settings } = cli;
  let backend: DriveBackend;
  try {
    backend = await openBackend(settings);
  } catch (error) {
    console.error(`car agent: ${(error as Error).message}`);
    process.exit(1);
  }
  log(
    `telerace car agent ${AGENT_VERSION}: car ${settings.carId}, drive ${settings.drive}${settings.drive === 'sim' ? ` (assist ${settings.assist ? 'on' : 'off'})` : ''}, camera ${settings.video.camera}, server ${settings.server}`,
  );
  const video = createVideoStreamer(settings.video, {
    log,
    car: backend instanceof SimBackend ? backend.car : undefined,
  });
  const agent = new CarAgent(settings, {
    backend,
    log,
    exit: (code) => process.exit(code),
    ...(settings.drive === 'sim' ? {} : { telemetry: () => wifiTelemetry() }),
    ...(video ? { video } : {}),
  });
  // A PCA9685 keeps its last pulses when the process dies: whatever ends the process, the last
  // synchronous act is neutral. (Only SIGKILL skips this; see docs/car.md.) The camera's
  // GStreamer gets its SIGTERM in the same breath (a real camera's would otherwise outlive us).
  process.on('exit', () => {
    backend.neutral();
    void video?.stop();
  });
  process.on('uncaughtException', (error) => {
    backend.neutral();
    console.error(`car agent: crashed: ${error.stack ?? error.message}`);
    process.exit(1);
  });
  const shutdown = (signal: string) => {
    log(`${signal}: neutral and exit`);
    void agent.stop().then(() => process.exit(0));
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  agent.start();
}

await main();
