/** The race as the event socket last told it, for a screen (RaceStore in a React hook). */
import { useEffect, useSyncExternalStore } from 'react';
import { type RaceSnapshot, type RaceStore, raceStore } from './race-store';

export function useRace(store: RaceStore = raceStore): RaceSnapshot {
  const snapshot = useSyncExternalStore(
    (listener) => store.subscribe(listener),
    () => store.getState(),
  );
  // A screen opened before any state arrived asks for it (the socket sends its own on open).
  useEffect(() => {
    if (store.getState().state === null) store.requestState();
  }, [store]);
  return snapshot;
}
