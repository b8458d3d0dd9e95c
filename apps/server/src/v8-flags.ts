/**
 * V8 settings for the server process, applied before anything else runs (main.ts imports this
 * first). Each was measured with `npm run bench -- relay-under-load` (docs/performance.md,
 * decisions.md): the garbage collector's pauses are pauses of a driven car's commands.
 *
 * Allocation-site pretenuring off. Under a steady load of requests V8 sometimes decides that the
 * objects a request makes live long, and from then on allocates them straight in the old
 * generation: a full collection every 0.6 s and 4 ms young collections, for the rest of the
 * process's life (p99 of a driven car's commands 10–16 ms instead of 3–6, 7 of 19 server runs;
 * with this flag, 0 of 20). Request objects die young: nothing here gains from the guess.
 *
 * Collections on the main thread alone, without helper threads. A parallel collection waits for
 * all its helpers; on a busy machine (the server beside its own load, or any 2-core host) the OS
 * may not run a helper for milliseconds, and the whole pause waits: young collections of 10–17 ms
 * under load where the average one takes 0.8 ms (with these settings the longest was 0.9–3.7 ms in
 * 11 of 12 runs, and young collections took ~20 % less time in all). Concurrent marking and
 * sweeping stay on: they never make the main thread wait. `--single-threaded-gc`, which turns
 * those off too, was measured and is worse.
 */
import { setFlagsFromString } from 'node:v8';

for (const flag of [
  '--no-allocation-site-pretenuring',
  '--no-parallel-scavenge',
  '--no-parallel-compaction',
]) {
  setFlagsFromString(flag);
}
