import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
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

/**
 * Every file of the repository is read by people who have only the repository: a path into a
 * folder beside it (a design folder, a machine's /work) leads nowhere for them.
 */
const REPO_ROOT = resolve(import.meta.dirname, '../../..');
const SKIPPED_FOLDERS = new Set([
  'node_modules',
  'dist',
  '.git',
  'data',
  'coverage',
  'test-results',
  'playwright-report',
  'results',
]);
const TEXT_FILE = /\.(md|ts|tsx|mjs|cjs|js|json|jsonc|service|conf|sh|yml|yaml|html|css)$/;

function textFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return SKIPPED_FOLDERS.has(entry.name) ? [] : textFiles(path);
    return entry.isFile() && TEXT_FILE.test(entry.name) ? [path] : [];
  });
}

/** Documents that are not the repository's: the car package writes the one and reads the other from the libraries it inlines. */
const PACKAGED_DOCS = ['THIRD-PARTY-NOTICES.md', 'LICENSE.md'];

describe('references to files', () => {
  const files = textFiles(REPO_ROOT);
  const upperCaseDocs = new Set([
    ...files.map((file) => basename(file)).filter((name) => /^[A-Z][A-Z0-9_-]*\.md$/.test(name)),
    ...PACKAGED_DOCS,
  ]);

  it('no file names a path outside the repository, nor a document it does not hold', () => {
    const outside: string[] = [];
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      const where = relative(REPO_ROOT, file);
      for (const match of text.matchAll(/\/work\/|shared\/design\b/g)) outside.push(`${where}: ${match[0]}`);
      for (const [name] of text.matchAll(/\b[A-Z][A-Z0-9_-]*\.md\b/g))
        if (!upperCaseDocs.has(name)) outside.push(`${where}: ${name}`);
      if (!file.endsWith('.md')) continue;
      // Relative paths and links in documents stay inside the repository, and links lead to a file.
      for (const [path] of text.matchAll(/(?:\.\.\/)+[\w./-]*/g))
        if (relative(REPO_ROOT, resolve(dirname(file), path)).startsWith('..'))
          outside.push(`${where}: ${path}`);
      for (const [, link] of text.matchAll(/\]\(([^)\s#]+)[^)]*\)/g)) {
        if (link === undefined || /^[a-z]+:/.test(link) || !/\.\w+$/.test(link)) continue;
        const target = resolve(dirname(file), link);
        if (relative(REPO_ROOT, target).startsWith('..') || !existsSync(target))
          outside.push(`${where}: ${link}`);
      }
    }
    expect(outside).toEqual([]);
  });
});
