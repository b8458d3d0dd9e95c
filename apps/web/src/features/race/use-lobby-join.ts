/**
 * Joining the lobby from the control page (LobbyJoin for a screen's lifetime); with `autoJoinCarId`
 * the page joins by itself with that car.
 */
import { useCallback, useEffect, useState, useSyncExternalStore } from 'react';
import { LobbyJoin, type LobbyJoinPhase } from './lobby-join';
import { type RaceStore, raceStore } from './race-store';

const NONE: LobbyJoinPhase = { kind: 'none' };

export function useLobbyJoin(
  userId: number | null,
  autoJoinCarId: number | null = null,
  store: RaceStore = raceStore,
): { phase: LobbyJoinPhase; join: (carId: number) => void; leave: () => void } {
  const [joiner, setJoiner] = useState<LobbyJoin | null>(null);
  useEffect(() => {
    if (userId === null) return;
    const next = new LobbyJoin(store.socket, userId, () => store.getState().state, autoJoinCarId);
    const stop = next.start();
    setJoiner(next);
    return () => {
      stop();
      setJoiner(null);
    };
  }, [store, userId, autoJoinCarId]);
  const subscribe = useCallback(
    (listener: () => void) => joiner?.subscribe(listener) ?? (() => {}),
    [joiner],
  );
  const phase = useSyncExternalStore(subscribe, () => joiner?.phase ?? NONE);
  const join = useCallback((carId: number) => joiner?.join(carId), [joiner]);
  const leave = useCallback(() => joiner?.leave(), [joiner]);
  return { phase, join, leave };
}
