/**
 * A new embedded database starts from an archive of an empty cluster, made once by `npm run build`
 * (scripts/empty-cluster.ts), instead of running PostgreSQL's initdb in WebAssembly: measured on
 * this 2-core machine, 1.8 s to unpack against 6.5 s for initdb, on every first start (the
 * quickstart, every browser test server, every test that starts a server on a new DATA_DIR).
 *
 * The archive is what initdb leaves (PGlite's own dumpDataDir of a cluster that has just been
 * created), named by the PGlite version that made it: another version's archive is never read,
 * and without one for this version (not built, or a PGlite upgrade since the build) the cluster is
 * made by initdb as before. The migrations run on it either way.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { SERVER_ROOT } from '../paths.js';

let installedPgliteVersion: string | undefined;

/**
 * The installed PGlite's version (its package.json is not exported: found above its entry), read
 * once per process: every server start asks, also when its cluster already exists.
 */
function pgliteVersion(): string {
  installedPgliteVersion ??= readPgliteVersion();
  return installedPgliteVersion;
}

function readPgliteVersion(): string {
  let folder = dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
  while (!existsSync(join(folder, 'package.json'))) {
    if (dirname(folder) === folder) return 'unknown';
    folder = dirname(folder);
  }
  return (JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { version: string }).version;
}

/** Where the build puts the archive for the installed PGlite (dist/, beside the server's bundle). */
export function emptyClusterArchivePath(): string {
  return join(SERVER_ROOT, 'dist', `empty-cluster-pglite-${pgliteVersion()}.tar.gz`);
}

/**
 * The archive to unpack into `dataDir`, if the folder holds no cluster yet and the archive for
 * this PGlite exists; otherwise undefined (PGlite opens the cluster there, or runs initdb).
 */
export function emptyClusterFor(dataDir: string, archive?: string): Blob | undefined {
  return existsSync(join(dataDir, 'PG_VERSION')) ? undefined : emptyClusterArchive(archive);
}

/** The archive's bytes, or undefined when there is none (not built). */
export function emptyClusterArchive(archive: string = emptyClusterArchivePath()): Blob | undefined {
  try {
    return new Blob([readFileSync(archive)]);
  } catch {
    return undefined;
  }
}

/** Runs initdb in memory and returns the new cluster as PGlite's gzipped archive. */
export async function makeEmptyCluster(): Promise<Blob> {
  const pglite = new PGlite();
  try {
    await pglite.waitReady;
    return await pglite.dumpDataDir('gzip');
  } finally {
    await pglite.close();
  }
}
