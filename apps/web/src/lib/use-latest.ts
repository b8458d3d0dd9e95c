/**
 * A ref holding a value of the latest render, for callbacks that outlive it (listeners, timers,
 * a router's navigate). Written once the render commits, never during it: a render React drops or
 * repeats must not change what those callbacks see.
 */
import { type RefObject, useLayoutEffect, useRef } from 'react';

export function useLatest<T>(value: T): RefObject<T> {
  const ref = useRef(value);
  useLayoutEffect(() => {
    ref.current = value;
  });
  return ref;
}
