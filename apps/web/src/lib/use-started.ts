/**
 * An object a screen starts for as long as its inputs hold, and whose state it shows as it
 * changes: the control socket, the video stream, the lobby join. The object is made and started in
 * an effect (never during render: StrictMode and an aborted render would start it twice), stopped
 * when the inputs change or the screen goes, and read with `useSyncExternalStore` through one
 * subscription per object.
 */
import { type DependencyList, useCallback, useEffect, useState, useSyncExternalStore } from 'react';

export interface Subscribable {
  subscribe(listener: () => void): () => void;
}

/** What `start` hands back: the started object and how to stop it. Null: nothing to start now. */
export type Started<T> = { value: T; stop: () => void } | null;

const NO_SUBSCRIPTION = () => () => {};

/**
 * `start` runs again whenever `inputs` change (they are its effect's dependencies); `read` gives
 * the snapshot shown, with null while nothing runs, and must return the same value until the
 * object says it changed (a StateStore's `getState`).
 */
export function useStarted<T extends Subscribable, Snapshot>(
  start: () => Started<T>,
  inputs: DependencyList,
  read: (value: T | null) => Snapshot,
): { value: T | null; snapshot: Snapshot } {
  const [value, setValue] = useState<T | null>(null);
  useEffect(() => {
    const started = start();
    if (!started) return;
    setValue(started.value);
    return () => {
      started.stop();
      setValue(null);
    };
    // biome-ignore lint/correctness/useExhaustiveDependencies: the caller lists start's inputs (the effect's dependencies).
  }, inputs);
  const subscribe = useCallback(
    (listener: () => void) => (value ? value.subscribe(listener) : NO_SUBSCRIPTION()),
    [value],
  );
  const getSnapshot = () => read(value);
  // Before its effect ran (the server's render, a hydration) nothing is started: the same read.
  const snapshot = useSyncExternalStore(subscribe, getSnapshot, getSnapshot);
  return { value, snapshot };
}
