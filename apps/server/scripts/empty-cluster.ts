/**
 * Part of `npm run build`: the empty cluster a new embedded database starts from
 * (src/db/empty-cluster.ts), written to dist/ under the installed PGlite's version.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { emptyClusterArchivePath, makeEmptyCluster } from '../src/db/empty-cluster.js';

const path = emptyClusterArchivePath();
const archive = await makeEmptyCluster();
mkdirSync(dirname(path), { recursive: true });
// Whole or not at all: a server starting meanwhile never reads half an archive.
writeFileSync(`${path}.tmp`, Buffer.from(await archive.arrayBuffer()));
renameSync(`${path}.tmp`, path);
console.info(`empty cluster: ${path} (${(archive.size / 1_048_576).toFixed(1)} MB)`);
