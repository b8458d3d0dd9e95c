/** Opens the control connection for the page's lifetime; sends neutral and closes it on the way out. */
import { useCallback, useEffect, useState, useSyncExternalStore } from 'react';
import { getAccessToken } from '../../lib/auth-client';
import { ControlSocket, type ControlState } from '../../lib/control-socket';
import type { SocketFactory } from '../../lib/socket-url';

export function useControlSocket(
  carId: string,
  controlToken: string | null,
  createSocket?: SocketFactory,
): { socket: ControlSocket | null; state: ControlState | null } {
  const [socket, setSocket] = useState<ControlSocket | null>(null);

  useEffect(() => {
    if (!controlToken) return;
    const next = new ControlSocket({ carId, controlToken, getAccessToken, createSocket });
    next.start();
    setSocket(next);
    return () => {
      next.sendDrive(0, 0);
      next.stop();
      setSocket(null);
    };
  }, [carId, controlToken, createSocket]);

  const subscribe = useCallback(
    (listener: () => void) => socket?.subscribe(listener) ?? (() => {}),
    [socket],
  );
  const state = useSyncExternalStore(subscribe, () => socket?.getState() ?? null);
  return { socket, state };
}
