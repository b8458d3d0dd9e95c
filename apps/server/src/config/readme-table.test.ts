import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { setting } from './define.js';
import { documentedDefault, readmeRows, readmeTable, rowsInReadme, withReadmeTable } from './readme-table.js';

const port = setting({ env: 'PORT', schema: z.string(), default: '8080', doc: 'The port.' });
const token = setting({ env: 'TOKEN', schema: z.string(), default: null, doc: 'A token.', secret: true });
const derived = setting({
  env: 'URL',
  schema: z.string(),
  default: null,
  defaultDoc: '`http://localhost:<PORT>`',
  doc: 'The URL.',
});
const list = setting({ env: 'LIST', schema: z.string(), default: '', doc: 'A list.' });

const README = 'intro\n<!-- config:start -->\nold table\n<!-- config:end -->\noutro\n';

describe('README configuration table', () => {
  it('shows the default text, (unset), or the documented derivation', () => {
    expect([port, token, derived, list].map(documentedDefault)).toEqual([
      '`8080`',
      '(unset)',
      '`http://localhost:<PORT>`',
      '(unset)',
    ]);
  });

  it('writes one row per setting between the markers, marking the secrets', () => {
    const readme = withReadmeTable(README, readmeTable([port, token]));
    expect(readme).toBe(
      [
        'intro',
        '<!-- config:start -->',
        '',
        '| variable | default | secret | meaning |',
        '| --- | --- | --- | --- |',
        '| `PORT` | `8080` |  | The port. |',
        '| `TOKEN` | (unset) | yes | A token. |',
        '',
        '<!-- config:end -->',
        'outro',
        '',
      ].join('\n'),
    );
    expect(rowsInReadme(readme)).toEqual(readmeRows([port, token]));
  });

  it('reads a padded table back as the same rows', () => {
    const padded = README.replace(
      'old table',
      '| variable | default   | secret | meaning   |\n| -------- | --------- | ------ | --------- |\n| `PORT`   | `8080`    |        | The port. |',
    );
    expect(rowsInReadme(padded)).toEqual(readmeRows([port]));
  });

  it('tells a default changed in code from the one the README states', () => {
    const readme = withReadmeTable(README, readmeTable([port]));
    const changed = setting({ ...port, default: '9090' });
    expect(rowsInReadme(readme)).not.toEqual(readmeRows([changed]));
  });

  it('refuses a README without the markers', () => {
    expect(() => rowsInReadme('no table here')).toThrow(/needs the markers/);
  });
});
