/**
 * V8 settings for the server process, applied before anything else runs (main.ts imports this
 * first).
 *
 * Allocation-site pretenuring off. Under a steady load of requests V8 sometimes decides that the
 * objects a request makes live long, and from then on allocates them straight in the old
 * generation: a full collection every 0.6 s and 4 ms young collections, for the rest of the
 * process's life. `npm run bench -- relay-under-load` showed it as two modes (p99 of a driven
 * car's commands 3–6 ms in one, 10–16 ms in the other; 7 of 19 server runs in the slow one);
 * with this flag, 0 of 20 (docs/performance.md, decisions.md). Request objects die young: nothing
 * here gains from the guess.
 */
import { setFlagsFromString } from 'node:v8';

setFlagsFromString('--no-allocation-site-pretenuring');
