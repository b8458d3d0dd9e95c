/** Prints a benchmark's table and writes `bench/results/<name>.json`. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const RESULTS_DIR = join(dirname(fileURLToPath(import.meta.url)), '../../results');

export type Row = Record<string, string | number>;

export function printTable(title: string, rows: Row[]): void {
  const first = rows[0];
  if (!first) return;
  const columns = Object.keys(first);
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c] ?? '').length)));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ');
  console.info(`\n${title}`);
  console.info(line(columns));
  console.info(line(widths.map((w) => '-'.repeat(w))));
  for (const row of rows) console.info(line(columns.map((c) => String(row[c] ?? ''))));
}

/**
 * Writes the result with when it was measured and how busy the machine was by then (the 1-minute
 * load average next to the number of cores): a number measured while others run tests is noisy.
 */
export function writeResult(name: string, result: object): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `${name}.json`);
  const machine = { cores: cpus().length, load_average_1m: round(loadavg()[0] ?? 0) };
  console.info(
    `machine: ${machine.cores} cores, 1-minute load average ${machine.load_average_1m} at the end`,
  );
  const written = { ...result, machine, measured_at: new Date().toISOString() };
  writeFileSync(file, `${JSON.stringify(written, null, 2)}\n`);
  return file;
}

export const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;
