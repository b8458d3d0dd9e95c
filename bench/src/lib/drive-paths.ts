/**
 * The ways a driver's commands reach the server, for the loss bench (lossy.bench.ts): each opens
 * a driver on a car over an impaired link and sends drives on it.
 */

import { type Impairment, startImpairedTcpProxy } from './impairment.js';
import { openSocket } from './relay-clients.js';
import { api } from './telerace-api.js';

export interface DriverOnLink {
  drive(throttle: number): void;
  close(): void;
}

export interface DrivePath {
  name: string;
  /** Whether this server speaks the path at all. */
  available(base: string): Promise<boolean>;
  open(options: {
    base: string;
    admin: string;
    member: string;
    carId: number;
    link: Impairment;
  }): Promise<DriverOnLink>;
}

/** The member takes the car with a code an admin generated: the control token. */
export async function controlTokenFor(
  base: string,
  admin: string,
  member: string,
  carId: number,
): Promise<string> {
  const { code } = await api<{ code: string }>(base, `/admin/cars/${carId}/generate_code`, {
    method: 'POST',
    token: admin,
  });
  const { controlToken } = await api<{ controlToken: string }>(base, `/cars/${carId}/connect`, {
    method: 'POST',
    token: member,
    body: { code },
  });
  return controlToken;
}

/** The controller socket's address on `socketBase`, for a member holding `carId`. */
export const controllerSocketUrl = (
  socketBase: string,
  carId: number,
  member: string,
  controlToken: string,
) =>
  `${socketBase.replace(/^http/, 'ws')}/rcsocket?type=controller&car=${carId}&control_token=${encodeURIComponent(controlToken)}&token=${encodeURIComponent(member)}`;

/** Drives on the controller socket, its TCP connection through the impaired link. */
const websocketPath: DrivePath = {
  name: 'websocket',
  available: async () => true,
  async open({ base, admin, member, carId, link }) {
    const controlToken = await controlTokenFor(base, admin, member, carId);
    const proxy = await startImpairedTcpProxy(Number(new URL(base).port), link);
    // The origin is the site's own: the proxy is the network, not another site.
    const socket = await openSocket(
      controllerSocketUrl(`http://127.0.0.1:${proxy.port}`, carId, member, controlToken),
      { origin: base },
    );
    return {
      drive: (throttle) => socket.send(JSON.stringify({ type: 'drive', throttle, steer: 0 })),
      close: () => {
        socket.close();
        void proxy.close();
      },
    };
  },
};

export const DRIVE_PATHS: DrivePath[] = [websocketPath];
