/**
 * `npm run docs:config -w apps/server`: rewrites the README's configuration table from
 * CONFIG_DOCS, between the `config:start` and `config:end` markers (src/docs.test.ts checks it).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { CONFIG_DOCS } from '../src/config.js';

const README = resolve(import.meta.dirname, '../../../README.md');
const START = '<!-- config:start -->';
const END = '<!-- config:end -->';

const code = (value: string) => (value.startsWith('(') || value.includes('`') ? value : `\`${value}\``);
const table = [
  '| variable | default | meaning |',
  '| --- | --- | --- |',
  ...CONFIG_DOCS.map((d) => `| \`${d.name}\` | ${code(d.default)} | ${d.meaning} |`),
].join('\n');

const readme = readFileSync(README, 'utf8');
const from = readme.indexOf(START);
const to = readme.indexOf(END);
if (from < 0 || to < from) throw new Error(`README.md needs the markers ${START} and ${END}`);
writeFileSync(README, `${readme.slice(0, from + START.length)}\n\n${table}\n\n${readme.slice(to)}`);
console.info(`README.md: ${CONFIG_DOCS.length} variables`);
