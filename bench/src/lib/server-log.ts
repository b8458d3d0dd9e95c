/**
 * The measured server's log, read as it is written (pino JSON lines on stdout): kept whole in a
 * file, with what the soak run checks picked out on the way — every line at error level or above,
 * the warnings counted by message, and each simulated car's finish-line crossings (the car agent
 * logs every `pass` it sends, and the server logs its simulated cars' output under their car id).
 */
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';

/** pino's levels: 50 error, 60 fatal. */
const ERROR_LEVEL = 50;
const WARN_LEVEL = 40;
/** The car agent's line for each crossing (apps/car/src/agent.ts `sendPass`). */
const PASS_LINE = /\bpass at (\d+) (sent|not sent)/;

export interface Crossing {
  at: number;
  /** False when the agent could not send it (its link was down). */
  sent: boolean;
}

export class ServerLog {
  readonly #file: WriteStream;
  readonly #open: Promise<void>[] = [];
  /** Lines at error level or above, as written. */
  readonly errors: string[] = [];
  /** Warning lines by message. */
  readonly warnings = new Map<string, number>();
  /** Each simulated car's crossings, by car id, in order. */
  readonly crossings = new Map<number, Crossing[]>();
  /** Lines that are not JSON (the banner of codes, Node's own warnings, the inspector's address). */
  plainLines = 0;
  lines = 0;

  constructor(readonly path: string) {
    mkdirSync(dirname(path), { recursive: true });
    this.#file = createWriteStream(path);
  }

  /** Reads the server's output from now on; `done()` resolves once both streams have ended. */
  attach(stdout: Readable, stderr: Readable): void {
    for (const stream of [stdout, stderr]) {
      const lines = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
      lines.on('line', (line) => this.#read(line));
      this.#open.push(new Promise((resolve) => lines.once('close', resolve)));
    }
  }

  #read(line: string): void {
    this.lines++;
    this.#file.write(`${line}\n`);
    if (!line.startsWith('{')) {
      this.plainLines++;
      return;
    }
    let entry: { level?: number; msg?: string; carId?: number; output?: string };
    try {
      entry = JSON.parse(line);
    } catch {
      this.plainLines++;
      return;
    }
    const level = entry.level ?? 0;
    if (level >= ERROR_LEVEL) this.errors.push(line);
    else if (level >= WARN_LEVEL) {
      const msg = entry.msg ?? '(no message)';
      this.warnings.set(msg, (this.warnings.get(msg) ?? 0) + 1);
    }
    const pass = entry.carId !== undefined && entry.output ? PASS_LINE.exec(entry.output) : null;
    if (pass && entry.carId !== undefined) {
      const list = this.crossings.get(entry.carId) ?? [];
      list.push({ at: Number(pass[1]), sent: pass[2] === 'sent' });
      this.crossings.set(entry.carId, list);
    }
  }

  /** Once the server has exited: every line read and the file written. */
  async done(): Promise<void> {
    await Promise.all(this.#open);
    await new Promise<void>((resolve) => this.#file.end(resolve));
  }
}
