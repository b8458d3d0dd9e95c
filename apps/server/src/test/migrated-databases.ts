/**
 * Vitest global setup of the pglite project: creates one empty PGlite cluster and saves it, so
 * each test database starts from that file instead of running initdb again (seconds each).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteSnapshotFile: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = await mkdtemp(join(tmpdir(), 'telerace-pglite-snapshot-'));
  const file = join(dir, 'empty-cluster.tar');
  const pglite = new PGlite();
  // Dumping a cluster that is still starting never settles (and Vitest then quits, running nothing).
  await pglite.waitReady;
  const snapshot = await pglite.dumpDataDir('none');
  await pglite.close();
  await writeFile(file, Buffer.from(await snapshot.arrayBuffer()));
  project.provide('pgliteSnapshotFile', file);
  return () => rm(dir, { recursive: true, force: true });
}
