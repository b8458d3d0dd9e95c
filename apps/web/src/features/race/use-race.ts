/**
 * The race as the event socket last told it, for a screen (RaceStore in a React hook). The store
 * is the app's one (`raceStore`) unless a `RaceStoreContext` provider gives another (tests).
 */
import { createContext, useCallback, useContext, useEffect, useSyncExternalStore } from 'react';
import { type RaceSnapshot, type RaceStore, raceStore } from './race-store';

export const RaceStoreContext = createContext<RaceStore>(raceStore);

export function useRaceStore(): RaceStore {
  return useContext(RaceStoreContext);
}

export function useRace(): RaceSnapshot {
  const store = useRaceStore();
  // One subscription per store, not one per render.
  const subscribe = useCallback((listener: () => void) => store.subscribe(listener), [store]);
  const read = () => store.getState();
  const snapshot = useSyncExternalStore(subscribe, read, read);
  // A screen opened before any state arrived asks for it (the socket sends its own on open).
  useEffect(() => {
    if (store.getState().state === null) store.requestState();
  }, [store]);
  return snapshot;
}
