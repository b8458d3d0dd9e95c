/**
 * A new embedded database starts from the empty cluster's archive (empty-cluster.ts): the build
 * makes it for the installed PGlite; a new folder gets exactly that cluster, private modes
 * and a working database; a folder that already holds a cluster is opened as it is; an archive
 * that does not unpack falls back to initdb.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_ROOT } from '../paths.js';
import { openPgliteFolder } from './client.js';
import { emptyClusterArchivePath, emptyClusterFor } from './empty-cluster.js';

const tableCount = async (pglite: PGlite) =>
  (
    await pglite.query<{ count: number }>(
      `select count(*)::int as count from pg_tables where schemaname not in ('pg_catalog', 'information_schema')`,
    )
  ).rows[0]?.count;

const markerOf = async (pglite: PGlite) =>
  (await pglite.query<{ label: string }>('select label from marker')).rows.map((row) => row.label);

describe('a new embedded database from the empty cluster', () => {
  let folder: string;
  let emptyArchive: Blob;
  const opened: PGlite[] = [];

  /** The empty cluster with one table, `marker`, holding `label`: proof of where a cluster came from. */
  async function markedArchive(label: string): Promise<string> {
    const pglite = new PGlite({ loadDataDir: emptyArchive });
    await pglite.exec(`create table marker (label text); insert into marker values ('${label}')`);
    const path = join(folder, `${label}.tar.gz`);
    writeFileSync(path, Buffer.from(await (await pglite.dumpDataDir('gzip')).arrayBuffer()));
    await pglite.close();
    return path;
  }

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'telerace-empty-cluster-'));
    // test:all builds first; run alone, the build's own step makes the archive (5 s of initdb).
    if (!existsSync(emptyClusterArchivePath())) {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['--conditions=source', '--import', 'tsx', 'scripts/empty-cluster.ts'],
        { cwd: SERVER_ROOT },
      );
      expect(stdout).toContain(emptyClusterArchivePath());
    }
    emptyArchive = new Blob([readFileSync(emptyClusterArchivePath())]);
  }, 60_000);
  afterEach(async () => {
    for (const pglite of opened.splice(0)) await pglite.close();
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it("is made by the build, named by the installed PGlite's version, and holds no table", async () => {
    const version = (
      JSON.parse(
        readFileSync(join(SERVER_ROOT, '../../node_modules/@electric-sql/pglite/package.json'), 'utf8'),
      ) as { version: string }
    ).version;
    expect(emptyClusterArchivePath()).toBe(
      join(SERVER_ROOT, 'dist', `empty-cluster-pglite-${version}.tar.gz`),
    );
    const pglite = new PGlite({ loadDataDir: emptyArchive });
    opened.push(pglite);
    expect(await tableCount(pglite)).toBe(0);
  });

  it('unpacks the archive into a new folder, private to the server, and opens an existing cluster as it is', async () => {
    const archive = await markedArchive('from-the-archive');
    const dataDir = join(folder, 'data', 'db');

    const fresh = await openPgliteFolder(dataDir, { emptyClusterArchive: archive });
    expect(await markerOf(fresh)).toEqual(['from-the-archive']);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dataDir, 'PG_VERSION')).mode & 0o777).toBe(0o600);
    await fresh.exec(`insert into marker values ('written later')`);
    await fresh.close();

    // Started again with another archive at hand: the folder's own cluster, with what was written.
    const other = emptyClusterArchivePath();
    expect(emptyClusterFor(dataDir, other)).toBeUndefined();
    const again = await openPgliteFolder(dataDir, { emptyClusterArchive: other });
    opened.push(again);
    expect(await markerOf(again)).toEqual(['from-the-archive', 'written later']);
  });

  it('runs initdb when the archive is missing or does not unpack', async () => {
    expect(emptyClusterFor(join(folder, 'none', 'db'), join(folder, 'missing.tar.gz'))).toBeUndefined();
    const broken = join(folder, 'broken.tar.gz');
    writeFileSync(broken, 'not an archive');
    const pglite = await openPgliteFolder(join(folder, 'broken', 'db'), { emptyClusterArchive: broken });
    opened.push(pglite);
    expect((await pglite.query<{ one: number }>('select 1 as one')).rows).toEqual([{ one: 1 }]);
    expect(await tableCount(pglite)).toBe(0);
  });
});
