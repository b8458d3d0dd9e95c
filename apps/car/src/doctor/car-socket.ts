/**
 * Check 2: the car socket admits this car with this secret. The doctor dials `/rcsocket` once,
 * as the agent does (carSocketUrl, the secret in the Authorization header, `hello` with the
 * protocol version), and waits for `welcome`. The socket stays open for checks 4 and 8, and is
 * closed with 1000 at the end.
 *
 * A second connection of the same car replaces the first on the server: run while the agent's
 * service runs, the doctor would take the car's socket (and the running agent, reconnecting,
 * would take it back). So it first asks systemd whether `telerace-car` is active and refuses to
 * connect when it is (docs/decisions.md), and it reports a socket replaced under it.
 */
import { execFile } from 'node:child_process';
import { EventEmitter } from 'node:events';
import {
  CAR_PROTOCOL_VERSION,
  type CarAgentMessage,
  CONTROL_LIMITS,
  ServerCarMessage,
  SOCKET_CLOSE_CODES,
} from '@telerace/protocol';
import WebSocket from 'ws';
import { AGENT_VERSION } from '../cli.js';
import { carSocketUrl } from '../link.js';
import type { AgentSettings } from '../settings.js';
import { type CheckResult, fail, pass } from './format.js';

export const SERVICE = 'telerace-car';
const HANDSHAKE_TIMEOUT_MS = 5_000;
/**
 * How long the socket is held after its welcome before check 2 passes: an agent running as this
 * car elsewhere (the service, a terminal, another car given the same id) reconnects 100 ms after
 * the doctor replaced it, and takes the socket back.
 */
const SETTLE_MS = 1_000;
const ANOTHER_AGENT_FIX = `stop the agent running as this car (sudo systemctl stop ${SERVICE}, or the one in a terminal), or give the other car its own id, then run the doctor again`;

const anotherAgent = (carId: string): CheckResult =>
  fail(
    `another agent runs as car ${carId}: it took the socket back within ${SETTLE_MS / 1000} s`,
    ANOTHER_AGENT_FIX,
  );

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The doctor's car socket, welcomed. */
export class DoctorSocket extends EventEmitter<{ message: [ServerCarMessage] }> {
  /** Resolves with why once the socket has closed. */
  readonly closed: Promise<string>;

  constructor(
    readonly ws: WebSocket,
    readonly driveChannel: boolean,
  ) {
    super();
    let markClosed: (why: string) => void = () => {};
    this.closed = new Promise((resolve) => {
      markClosed = resolve;
    });
    // A late error is followed by its close, which says why.
    ws.on('error', () => {});
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      try {
        const parsed = ServerCarMessage.safeParse(JSON.parse(data.toString()));
        if (parsed.success) this.emit('message', parsed.data);
      } catch {
        // Not JSON: the agent drops it too.
      }
    });
    ws.on('close', (code, reason) => {
      markClosed(
        code === SOCKET_CLOSE_CODES.replaced
          ? `another agent connected as this car and replaced the doctor's socket`
          : `the server closed the car socket (${code}${reason.length ? ` ${reason.toString()}` : ''})`,
      );
    });
  }

  /** Why the socket closed (waiting for its close when it is closing), as a failed check. */
  async failure(): Promise<CheckResult> {
    const why = await Promise.race([this.closed, delay(1_000).then(() => 'the car socket closed')]);
    return fail(why, why.startsWith('another agent') ? ANOTHER_AGENT_FIX : "check the server's log");
  }

  get open(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  send(message: CarAgentMessage): boolean {
    if (!this.open) return false;
    this.ws.send(JSON.stringify(message));
    return true;
  }

  async close(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      this.ws.once('close', () => resolve());
      this.ws.close(1000, 'doctor done');
      setTimeout(() => this.ws.terminate(), 1_000).unref();
    });
  }
}

/** Whether systemd runs the agent's service here (false where there is no systemd). */
export function serviceActive(): Promise<boolean> {
  return new Promise((resolve) => {
    execFile('systemctl', ['is-active', '--quiet', SERVICE], { timeout: 3_000 }, (error) => resolve(!error));
  });
}

export async function checkCarSocket(
  settings: AgentSettings,
  isServiceActive: () => Promise<boolean> = serviceActive,
): Promise<{ result: CheckResult; socket?: DoctorSocket }> {
  if (await isServiceActive()) {
    return {
      result: fail(
        `the ${SERVICE} service runs on this car: the doctor's socket would replace the agent's`,
        `stop it first (sudo systemctl stop ${SERVICE}), run the doctor, then start it again`,
      ),
    };
  }
  const url = carSocketUrl(settings.server, settings.carId);
  const ws = new WebSocket(url, {
    headers: { Authorization: `Bearer ${settings.secret}` },
    perMessageDeflate: false,
    maxPayload: CONTROL_LIMITS.maxPayloadBytes,
    handshakeTimeout: HANDSHAKE_TIMEOUT_MS,
  });
  const started = performance.now();
  return new Promise((resolve) => {
    const done = (result: CheckResult, socket?: DoctorSocket) => {
      clearTimeout(timer);
      if (!socket) ws.terminate();
      resolve(socket ? { result, socket } : { result });
    };
    const timer = setTimeout(
      () => done(fail('no welcome within 8 s', "check the server's log for this car")),
      8_000,
    );
    ws.on('error', (error) => {
      const status = /Unexpected server response: (\d+)/.exec(error.message)?.[1];
      if (status === '401' || status === '403')
        done(
          fail(
            `car secret refused (HTTP ${status}) for car ${settings.carId}`,
            "check CAR_SECRET (the admin page's Cars tab shows a new secret when it is rotated) and --car",
          ),
        );
      else if (status === '404')
        done(
          fail(
            `no car socket at ${url.origin}${url.pathname} (HTTP 404)`,
            '--server is the Telerace site, without /api',
          ),
        );
      else
        done(
          fail(
            `car socket failed: ${error.message}`,
            "check the server's log and any proxy in front of it (WebSocket upgrades)",
          ),
        );
    });
    ws.on('close', (code, reason) => {
      if (code === SOCKET_CLOSE_CODES.replaced) done(anotherAgent(settings.carId));
      else if (code === SOCKET_CLOSE_CODES.carRevoked)
        done(
          fail(
            `car ${settings.carId} refused: ${reason.toString() || 'revoked'}`,
            'check --car and CAR_SECRET on the admin page',
          ),
        );
      else
        done(
          fail(
            `the server closed the socket before its welcome (${code} ${reason.toString()})`,
            "check the server's log",
          ),
        );
    });
    ws.on('open', () => {
      ws.send(
        JSON.stringify({
          type: 'hello',
          protocolVersion: CAR_PROTOCOL_VERSION,
          agentVersion: AGENT_VERSION,
          capabilities: { passes: settings.drive === 'sim' },
        } satisfies CarAgentMessage),
      );
    });
    ws.on('message', (data) => {
      let message: ServerCarMessage;
      try {
        const parsed = ServerCarMessage.safeParse(JSON.parse(data.toString()));
        if (!parsed.success) return;
        message = parsed.data;
      } catch {
        return;
      }
      if (message.type === 'welcome') {
        ws.removeAllListeners();
        clearTimeout(timer);
        const socket = new DoctorSocket(ws, message.driveChannel === true);
        const ms = Math.round(performance.now() - started);
        void delay(SETTLE_MS).then(async () => {
          if (socket.open) return done(pass(`welcomed as car ${settings.carId} (${ms} ms)`), socket);
          const failure = await socket.failure();
          done(failure.detail.startsWith('another agent') ? anotherAgent(settings.carId) : failure);
        });
      } else if (message.type === 'incompatible') {
        const { min, max } = message.supported;
        const range = min === max ? `${min}` : `${min}–${max}`;
        done(
          message.reason === 'client_too_old'
            ? fail(
                `this agent is too old for the server (car protocol ${CAR_PROTOCOL_VERSION}, the server accepts ${range})`,
                'update the car agent (docs/car.md "Updating the agent")',
              )
            : fail(
                `the server is older than this agent (it accepts car protocol ${range}, this agent speaks ${CAR_PROTOCOL_VERSION})`,
                'update the server',
              ),
        );
      }
    });
  });
}
