/**
 * The README's configuration table, written from the settings tables: `npm run docs:config`
 * writes it and docs.test.ts checks the README holds exactly this.
 */
import type { Setting } from './define.js';

export const README_START = '<!-- config:start -->';
export const README_END = '<!-- config:end -->';

/** What the README shows as a setting's default. */
export function documentedDefault(entry: Setting<unknown>): string {
  if (entry.defaultDoc !== undefined) return entry.defaultDoc;
  if (entry.default === null || entry.default === '') return '(unset)';
  return `\`${entry.default}\``;
}

/** Header, separator and one row per setting, each row as its cells. */
export function readmeRows(settings: readonly Setting<unknown>[]): string[][] {
  return [
    ['variable', 'default', 'secret', 'meaning'],
    ['---', '---', '---', '---'],
    ...settings.map((entry) => [
      `\`${entry.env}\``,
      documentedDefault(entry),
      entry.secret ? 'yes' : '',
      entry.doc,
    ]),
  ];
}

export function readmeTable(settings: readonly Setting<unknown>[]): string {
  return readmeRows(settings)
    .map((cells) => `| ${cells.join(' | ')} |`)
    .join('\n');
}

/** Where the table sits: just after the start marker, up to the end marker. */
function tableBounds(readme: string): { from: number; to: number } {
  const from = readme.indexOf(README_START);
  const to = readme.indexOf(README_END);
  if (from < 0 || to < from) throw new Error(`README.md needs the markers ${README_START} and ${README_END}`);
  return { from: from + README_START.length, to };
}

/** The README's table as rows of trimmed cells (Biome pads them), for comparing with readmeRows. */
export function rowsInReadme(readme: string): string[][] {
  const { from, to } = tableBounds(readme);
  return readme
    .slice(from, to)
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .map((line) =>
      line
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim())
        .map((cell) => (/^-+$/.test(cell) ? '---' : cell)),
    );
}

/** The README with its table replaced. */
export function withReadmeTable(readme: string, table: string): string {
  const { from, to } = tableBounds(readme);
  return `${readme.slice(0, from)}\n\n${table}\n\n${readme.slice(to)}`;
}
