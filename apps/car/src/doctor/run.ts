/**
 * `telerace-car doctor` (docs/car.md "Before an event: telerace-car doctor"): runs the checks in
 * order with the agent's own settings, prints each line as soon as its check ends, and returns the
 * exit code (0 only when none failed). Every check has a timeout, so nothing hangs; a check that
 * needs an earlier one that failed is skipped, saying which. Checks that need no server (the drive
 * board, the camera, the encoder) run anyway, so one run lists every problem.
 */
import { CAR_CHANNEL } from '@telerace/protocol';
import { AGENT_VERSION } from '../cli.js';
import type { AgentSettings } from '../settings.js';
import { checkCamera, checkEncoder } from './camera.js';
import { checkCarSocket, type DoctorSocket, SERVICE } from './car-socket.js';
import { checkDriveBoard } from './drive-board.js';
import { checkDriveChannel } from './drive-channel.js';
import { type CheckResult, exitCode, fail, formatLine, skip, summaryLine } from './format.js';
import { checkClock, checkServer, type ServerProbe } from './server.js';
import { checkUplink } from './uplink.js';

export interface DoctorOptions {
  /** 3 s of uplink measure instead of 10 (tests, a quick look). */
  quick: boolean;
  print: (line: string) => void;
}

interface State {
  /** The server answered HTTP (check 1), whatever its status. */
  answered?: boolean;
  probe?: ServerProbe;
  socket?: DoctorSocket;
}

interface Check {
  name: string;
  timeoutMs: number;
  run: (state: State) => Promise<CheckResult> | CheckResult;
}

/** The check's result, or a failure when it does not end within its timeout (or throws). */
async function within(check: Check, state: State): Promise<CheckResult> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<CheckResult>((resolve) => {
    timer = setTimeout(
      () =>
        resolve(
          fail(
            `no result within ${check.timeoutMs / 1000} s`,
            'run the doctor again; if it repeats, see docs/car.md',
          ),
        ),
      check.timeoutMs,
    );
  });
  try {
    return await Promise.race([Promise.resolve().then(() => check.run(state)), timeout]);
  } catch (error) {
    return fail(`the check itself failed: ${(error as Error).message}`, 'report it with this output');
  } finally {
    clearTimeout(timer);
  }
}

function doctorChecks(settings: AgentSettings, options: DoctorOptions): Check[] {
  const uplinkMs = options.quick ? 3_000 : 10_000;
  const needsSocket = (run: (socket: DoctorSocket) => Promise<CheckResult>) => (state: State) =>
    state.socket ? run(state.socket) : skip('needs the car socket (check 2)');
  return [
    {
      name: 'server reachable',
      timeoutMs: 8_000,
      run: async (state) => {
        const { result, answered, probe } = await checkServer(settings.server);
        state.answered = answered;
        if (probe) state.probe = probe;
        return result;
      },
    },
    {
      name: 'car socket',
      timeoutMs: 15_000,
      run: async (state) => {
        if (!state.answered) return skip('needs the server (check 1)');
        const { result, socket } = await checkCarSocket(settings);
        if (socket) state.socket = socket;
        return result;
      },
    },
    {
      name: 'clock',
      timeoutMs: 1_000,
      run: (state) => (state.probe ? checkClock(state.probe) : skip('needs the server (check 1)')),
    },
    {
      name: 'drive channel',
      timeoutMs: CAR_CHANNEL.openTimeoutMs + 3_000,
      run: (state) => {
        if (!settings.driveChannel) return skip('--drive-channel off (drives go by the car socket only)');
        if (!state.socket) return skip('needs the car socket (check 2)');
        if (!state.socket.driveChannel)
          return skip("the server's welcome says it has no drive channel (DRIVE_CHANNEL=off there)");
        return checkDriveChannel(state.socket);
      },
    },
    { name: 'drive board', timeoutMs: 8_000, run: () => checkDriveBoard(settings) },
    { name: 'camera', timeoutMs: 15_000, run: () => checkCamera(settings.video) },
    { name: 'encoder', timeoutMs: 25_000, run: () => checkEncoder(settings.video) },
    {
      name: 'uplink',
      timeoutMs: uplinkMs + 5_000,
      run: needsSocket((socket) => checkUplink(socket, uplinkMs)),
    },
  ];
}

function doctorHeader(settings: AgentSettings): string {
  const { video } = settings;
  const camera =
    video.camera === 'none'
      ? 'no camera'
      : `camera ${video.camera} ${video.width}×${video.height} at ${video.framerate} fps`;
  return [
    `telerace-car doctor ${AGENT_VERSION}: car ${settings.carId}, server ${settings.server}, drive ${settings.drive}, ${camera}`,
    `(stop the ${SERVICE} service first: the doctor opens this car's socket and its camera)`,
  ].join('\n');
}

export async function runDoctor(settings: AgentSettings, options: DoctorOptions): Promise<0 | 1> {
  options.print(doctorHeader(settings));
  const state: State = {};
  const results: CheckResult[] = [];
  try {
    for (const [index, check] of doctorChecks(settings, options).entries()) {
      const result = await within(check, state);
      results.push(result);
      options.print(formatLine(index + 1, check.name, result));
    }
  } finally {
    await state.socket?.close();
  }
  options.print(summaryLine(results));
  return exitCode(results);
}
