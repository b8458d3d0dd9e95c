/**
 * The order the server suite's files start in. Vitest's own order runs the longest files first,
 * but only from the durations it cached on this machine: a clean clone (CI) has none, and a file
 * that waits a minute on real processes could then start last and run alone at the end.
 *
 * Here the files that spawn real processes and wait on them (servers, car agents, Janus, a
 * restarted PostgreSQL) start first whatever the cache says, each project's together (a worker
 * that is not isolated is reused only for files of the same project); then Vitest's order.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Files that wait on real processes; the longest first (about 65, 40, 40, 35, 25, 25, 20, 20, 20 s). */
const SLOW_FILES = [
  /\.instances\.test\.ts$/,
  /\/data-dir\.embedded\.test\.ts$/,
  /\/backup\.embedded\.test\.ts$/,
  /\/disk-full\.embedded\.test\.ts$/,
  /\/race-process\.test\.ts$/,
  /\/release\.once\.test\.ts$/,
  /\/safety\.once\.test\.ts$/,
  /\/car-network-stall\.once\.test\.ts$/,
  /\/database-restart\.postgres\.test\.ts$/,
  /\/main\.test\.ts$/,
];

const rank = (spec: TestSpecification): number => {
  const index = SLOW_FILES.findIndex((pattern) => pattern.test(spec.moduleId));
  return index === -1 ? SLOW_FILES.length : index;
};

export default class SlowFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ordered = await super.sort(files);
    const slow = ordered.filter((spec) => rank(spec) < SLOW_FILES.length);
    const rest = ordered.filter((spec) => rank(spec) === SLOW_FILES.length);
    // Stable: within a rank, Vitest's order (which keeps each project's files together).
    return [...slow.sort((a, b) => rank(a) - rank(b)), ...rest];
  }
}
