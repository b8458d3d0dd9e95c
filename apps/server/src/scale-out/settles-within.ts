/**
 * A deadline that a stalled event loop cannot fake (issue 39). After a stall (a long collection, a
 * burst of work) the deadline's timer and an answer that arrived meanwhile are both due, and Node
 * runs timers before it reads sockets: a plain timeout (pg's `query_timeout`) then declares silent
 * a peer that answered in time. Here the deadline only counts once the loop has read what is
 * waiting (`setImmediate` runs after that turn's socket reads).
 */

/** The value when `work` settled within `ms` (or during a stall that outlasted them); null when it did not. Rejects as `work` does. */
export async function settlesWithin<T>(work: Promise<T>, ms: number): Promise<{ value: T } | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => setImmediate(() => resolve(null)), ms);
  });
  try {
    return await Promise.race([work.then((value) => ({ value })), late]);
  } finally {
    clearTimeout(timer);
  }
}
