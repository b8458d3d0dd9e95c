/**
 * `npm run docs:config -w apps/server`: rewrites the README's configuration table from the
 * settings tables, between the `config:start` and `config:end` markers (src/docs.test.ts checks it).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { settingsOf } from '../src/config/define.js';
import { CONFIG_SECTIONS } from '../src/config/load.js';
import { readmeTable, withReadmeTable } from '../src/config/readme-table.js';

const README = resolve(import.meta.dirname, '../../../README.md');
const settings = settingsOf(CONFIG_SECTIONS);

writeFileSync(README, withReadmeTable(readFileSync(README, 'utf8'), readmeTable(settings)));
console.info(`README.md: ${settings.length} variables`);
