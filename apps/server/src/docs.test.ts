import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { settingsOf } from './config/define.js';
import { CONFIG_SECTIONS } from './config/load.js';
import { readmeRows, rowsInReadme } from './config/readme-table.js';

// `npm run docs:config -w apps/server` rewrites the table when one of these fails.
const readme = rowsInReadme(readFileSync(resolve(import.meta.dirname, '../../../README.md'), 'utf8'));
const generated = readmeRows(settingsOf(CONFIG_SECTIONS));

describe('README configuration table', () => {
  it('lists every variable the server reads, in the order of the settings tables', () => {
    expect(readme.map((cells) => cells[0])).toEqual(generated.map((cells) => cells[0]));
  });

  it.each(generated.slice(2).map((cells) => [cells[0], cells] as const))(
    'states the default, the secrecy and the meaning of %s as the code does',
    (variable, cells) => {
      expect(readme.find((row) => row[0] === variable)).toEqual(cells);
    },
  );
});
