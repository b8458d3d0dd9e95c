/**
 * `npm run verify-raffle -- <id | url | file>`: re-runs a published raffle draw and says whether
 * it matches (docs/raffle-fairness.md). The source is a raffle id (read from `PUBLIC_URL`, else
 * http://127.0.0.1:8080), the address of its JSON or of its public page, or a saved JSON file.
 * The checks are the server's own draw functions (modules/raffles/draw.ts), imported, not copied.
 * Exits 0 when every check matches, 1 otherwise.
 */
import { readFile } from 'node:fs/promises';
import { verifyPublishedRaffle } from './modules/raffles/verify.js';

const DEFAULT_SERVER = 'http://127.0.0.1:8080';

/** Where the raffle's JSON is: its API address for an id or a page address, else a file. */
function raffleSource(arg: string, env: Record<string, string | undefined>): URL | string {
  if (/^\d+$/.test(arg)) return new URL(`/api/raffles/${arg}`, env.PUBLIC_URL || DEFAULT_SERVER);
  if (/^https?:\/\//i.test(arg)) {
    const url = new URL(arg);
    // The public page /raffles/{id} shows the same raffle as /api/raffles/{id}.
    const page = /^\/raffles\/(\d+|current)\/?$/.exec(url.pathname);
    if (page) url.pathname = `/api/raffles/${page[1]}`;
    return url;
  }
  return arg;
}

async function load(source: URL | string): Promise<unknown> {
  if (typeof source === 'string') return JSON.parse(await readFile(source, 'utf8'));
  const response = await fetch(source, { headers: { accept: 'application/json' } });
  if (!response.ok) throw new Error(`${source} answered ${response.status}`);
  return response.json();
}

const print = (line: string) => process.stdout.write(`${line}\n`);

async function main(args: string[]): Promise<number> {
  const [arg] = args.filter((a) => a !== '--');
  if (!arg) {
    console.error('usage: npm run verify-raffle -- <raffle id | url | file.json>');
    return 1;
  }
  const source = raffleSource(arg, process.env);
  let json: unknown;
  try {
    json = await load(source);
  } catch (error) {
    console.error(`Could not read the raffle from ${source}: ${(error as Error).message}`);
    return 1;
  }
  const { ok, checks } = verifyPublishedRaffle(json);
  const id = (json as { id?: unknown } | null)?.id;
  print(`Raffle ${typeof id === 'number' ? id : '?'} from ${source}`);
  for (const check of checks) {
    if (check.ok) print(`OK        ${check.name}: ${check.computed}`);
    else
      print(
        `MISMATCH  ${check.name}: published ${check.published || '(none)'}, computed ${check.computed || '(none)'}`,
      );
  }
  print(ok ? 'The draw checks out.' : 'The draw does NOT check out.');
  return ok ? 0 : 1;
}

process.exitCode = await main(process.argv.slice(2));
