/**
 * SIM_CARS=N: the quick start's simulated cars. After the migrations, cars "Sim 1"…"Sim N" are
 * ensured, their secrets kept in DATA_DIR/sim-cars.json (0600; a car missing from the file gets a
 * new secret), each gets a fresh control code printed on stdout (living CONTROL_CODE_TTL_MINUTES,
 * like an admin's), and each car's agent runs as a
 * child process dialling the real car socket. A child that exits is restarted with a backoff
 * (exit code 75 asks for an immediate restart); all of them are stopped when the server closes.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { SupervisedProcess } from '../../child-process.js';
import { SYSTEM_ACTOR } from '../../kernel/audit.repo.js';
import { SERVER_ROOT } from '../../paths.js';
import { hashToken } from '../../tokens.js';
import type { AdminCarsService } from './admin-cars.service.js';

export const SIM_CARS_FILE = 'sim-cars.json';
/** The agent's way of asking for a restart (EX_TEMPFAIL). */
export const RESTART_EXIT_CODE = 75;
const KILL_GRACE_MS = 2_000;

export interface SimCar {
  id: number;
  name: string;
  code: string;
  secret: string;
}

/** How to start one agent: the program and its leading arguments (the car's are appended). */
export interface AgentCommand {
  command: string;
  args: string[];
}

/**
 * The real agent: from its bundle when the server runs from its bundle, otherwise (development,
 * tests) from its TypeScript source through tsx.
 */
export function defaultAgentCommand(): AgentCommand {
  const repoRoot = join(SERVER_ROOT, '..', '..');
  const bundle = join(repoRoot, 'apps/car/dist/main.js');
  const runningFromSource = import.meta.url.endsWith('.ts');
  if (!runningFromSource && existsSync(bundle)) return { command: process.execPath, args: [bundle] };
  return {
    command: process.execPath,
    args: ['--conditions=source', '--import', 'tsx', join(repoRoot, 'apps/car/src/main.ts')],
  };
}

export function simCarsBanner(simCars: SimCar[], publicUrl: string, codeTtlMinutes: number): string {
  const line = '='.repeat(64);
  return [
    '',
    line,
    ` Simulated cars (SIM_CARS=${simCars.length}): sign in, open ${publicUrl}/car-selection`,
    ` and connect with a code (each works once, for ${codeTtlMinutes} minutes; admins generate new ones):`,
    ...simCars.map((car) => `   ${car.name.padEnd(8)} code: ${car.code}`),
    line,
    '',
    '',
  ].join('\n');
}

async function readSecrets(file: string): Promise<Record<string, string>> {
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as unknown;
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, string>) : {};
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || error instanceof SyntaxError) return {};
    throw error;
  }
}

/**
 * Ensures the N cars, their secrets and fresh codes, through the cars service like an admin's
 * actions (so each is audited as the system's and emits its events).
 */
export async function provisionSimCars(
  cars: AdminCarsService,
  dataDir: string,
  count: number,
): Promise<SimCar[]> {
  const names = Array.from({ length: count }, (_, i) => `Sim ${i + 1}`);
  const file = join(dataDir, SIM_CARS_FILE);
  const secrets = await readSecrets(file);
  const existing = await cars.liveCarsNamed(names);
  const result: SimCar[] = [];
  for (const name of names) {
    const row = existing.find((car) => car.name === name);
    let id: number;
    let secret = row ? secrets[String(row.id)] : undefined;
    if (!row) {
      const created = await cars.create(SYSTEM_ACTOR, { name, image_url: null });
      id = created.car.id;
      secret = created.secret;
    } else {
      id = row.id;
      if (!secret || hashToken(secret) !== row.secretHash) secret = await cars.rotateSecret(SYSTEM_ACTOR, id);
    }
    const code = await cars.generateCode(SYSTEM_ACTOR, id);
    result.push({ id, name, code, secret });
  }
  await mkdir(dataDir, { recursive: true });
  const saved = Object.fromEntries(result.map((car) => [String(car.id), car.secret]));
  await writeFile(file, `${JSON.stringify(saved, null, 2)}\n`, { mode: 0o600 });
  await chmod(file, 0o600);
  return result;
}

/** Runs one agent process per simulated car and keeps it running. */
export class SimCarSupervisor {
  readonly #agents = new Map<number, SupervisedProcess>();

  readonly log: FastifyBaseLogger;
  readonly agent: AgentCommand;

  constructor(deps: { log: FastifyBaseLogger; agent?: AgentCommand | undefined }) {
    this.log = deps.log;
    this.agent = deps.agent ?? defaultAgentCommand();
  }

  start(simCars: SimCar[], serverUrl: string): void {
    for (const car of simCars) {
      if (this.#agents.has(car.id)) continue;
      const agent = new SupervisedProcess({
        name: 'sim car agent',
        command: this.agent.command,
        args: [...this.agent.args, '--server', serverUrl, '--car', String(car.id), '--drive', 'sim'],
        cwd: join(SERVER_ROOT, '..', '..'),
        env: { ...process.env, CAR_SECRET: car.secret },
        log: this.log.child({ simCar: car.name, carId: car.id }),
        restartExitCodes: [RESTART_EXIT_CODE],
        killGraceMs: KILL_GRACE_MS,
      });
      this.#agents.set(car.id, agent);
      agent.start();
    }
  }

  /** The running child of a car (tests). */
  child(carId: number): ChildProcess | undefined {
    return this.#agents.get(carId)?.child;
  }

  /** SIGTERM to every agent, SIGKILL after a grace period. */
  async stop(): Promise<void> {
    await Promise.all([...this.#agents.values()].map((agent) => agent.stop()));
  }
}
