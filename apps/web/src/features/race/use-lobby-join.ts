/**
 * Joining the lobby from the control page (LobbyJoin for a screen's lifetime); with `autoJoinCarId`
 * the page joins by itself with that car.
 */
import { useCallback } from 'react';
import { useStarted } from '../../lib/use-started';
import { LobbyJoin, type LobbyJoinPhase } from './lobby-join';
import { useRaceStore } from './use-race';

const NONE: LobbyJoinPhase = { kind: 'none' };

/** The page's lobby join: where it stands, and the driver's two moves. */
export interface LobbyJoinHandle {
  phase: LobbyJoinPhase;
  join: (carId: number) => void;
  leave: () => void;
}

export function useLobbyJoin(userId: number | null, autoJoinCarId: number | null = null): LobbyJoinHandle {
  const store = useRaceStore();
  const { value: joiner, snapshot: phase } = useStarted(
    () => {
      if (userId === null) return null;
      const next = new LobbyJoin(store.socket, userId, () => store.getState().state, autoJoinCarId);
      return { value: next, stop: next.start() };
    },
    [store, userId, autoJoinCarId],
    (current) => current?.phase ?? NONE,
  );
  const join = useCallback((carId: number) => joiner?.join(carId), [joiner]);
  const leave = useCallback(() => joiner?.leave(), [joiner]);
  return { phase, join, leave };
}
