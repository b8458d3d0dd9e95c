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
  SOCKET_CLOSE_CODES,
  ServerCarMessage,
} from '@telerace/protocol';
import WebSocket from 'ws';
import { AGENT_VERSION } from '../cli.js';
import { carSocketUrl } from '../link.js';
import type { AgentSettings } from '../settings.js';
import { type CheckResult, fail, pass } from './format.js';

export const SERVICE = 'telerace-car';
const HANDSHAKE_TIMEOUT_MS = 5_000;

/** The doctor's car socket, welcomed. */
export class DoctorSocket extends EventEmitter<{ message: [ServerCarMessage] }> {
  /** Set when the server closed the socket: why, for the checks that need it. */
  closedBecause: string | undefined;

  constructor(
    readonly ws: WebSocket,
    readonly driveChannel: boolean,
  ) {
    super();
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
      this.closedBecause =
        code === SOCKET_CLOSE_CODES.replaced
          ? `another agent connected as this car and replaced the doctor's socket (is the ${SERVICE} service running?)`
          : `the server closed the car socket (${code}${reason.length ? ` ${reason.toString()}` : ''})`;
    });
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
        done(fail(`no car socket at ${url.origin}${url.pathname} (HTTP 404)`, '--server is the Telerace site, without /api'));
      else done(fail(`car socket failed: ${error.message}`, "check the server's log and any proxy in front of it (WebSocket upgrades)"));
    });
    ws.on('close', (code, reason) => {
      if (code === SOCKET_CLOSE_CODES.carRevoked)
        done(fail(`car ${settings.carId} refused: ${reason.toString() || 'revoked'}`, 'check --car and CAR_SECRET on the admin page'));
      else done(fail(`the server closed the socket before its welcome (${code} ${reason.toString()})`, "check the server's log"));
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
        const socket = new DoctorSocket(ws, message.driveChannel === true);
        const ms = Math.round(performance.now() - started);
        done(pass(`welcomed as car ${settings.carId} (${ms} ms)`), socket);
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
