/** Opens the control connection for the page's lifetime; sends neutral and closes it on the way out. */
import { getAccessToken } from '../../lib/auth-client';
import { ControlSocket, type ControlState } from '../../lib/control-socket';
import type { SocketFactory } from '../../lib/socket-url';
import { useStarted } from '../../lib/use-started';

export function useControlSocket(
  carId: string,
  controlToken: string | null,
  createSocket?: SocketFactory,
): { socket: ControlSocket | null; state: ControlState | null } {
  const { value: socket, snapshot: state } = useStarted(
    () => {
      if (!controlToken) return null;
      const next = new ControlSocket({ carId, controlToken, getAccessToken, createSocket });
      next.start();
      return {
        value: next,
        stop: () => {
          next.sendDrive(0, 0);
          next.stop();
        },
      };
    },
    [carId, controlToken, createSocket],
    (current) => current?.getState() ?? null,
  );
  return { socket, state };
}
