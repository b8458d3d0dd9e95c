/**
 * `npm run verify-raffle -- <id | url | file>`: re-runs a published raffle draw and says whether
 * it matches (docs/raffle-fairness.md). The source is a raffle id (read from `PUBLIC_URL`, else
 * http://127.0.0.1:8080), the address of its public page or of its JSON (the record is fetched:
 * every entry), or a saved record (the page's download).
 * The checks are the shared procedure the server draws with and the raffle page checks with
 * (`verifyRaffleRecord` of @telerace/protocol), imported, not copied.
 * Exits 0 when every check matches, 1 otherwise.
 */
import { readFile } from 'node:fs/promises';
import { verifyRaffleRecord } from '@telerace/protocol';

const DEFAULT_SERVER = 'http://127.0.0.1:8080';

const RAFFLE_PATH = /^\/(?:api\/)?raffles\/(\d+|current)(?:\/record)?\/?$/;

/**
 * Where the raffle's record is: its API address for an id, for the public page's address or for
 * the summary's (`/api/raffles/{id}`, which has no entries), else a file.
 */
function raffleSource(arg: string, env: Record<string, string | undefined>): URL | string {
  if (/^\d+$/.test(arg)) return new URL(`/api/raffles/${arg}/record`, env.PUBLIC_URL || DEFAULT_SERVER);
  if (/^https?:\/\//i.test(arg)) {
    const url = new URL(arg);
    const raffle = RAFFLE_PATH.exec(url.pathname);
    if (raffle) url.pathname = `/api/raffles/${raffle[1]}/record`;
    return url;
  }
  return arg;
}

async function fetchJson(url: URL): Promise<unknown> {
  const response = await fetch(url, { headers: { accept: 'application/json' } });
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return response.json();
}

async function load(source: URL | string): Promise<unknown> {
  if (typeof source === 'string') return JSON.parse(await readFile(source, 'utf8'));
  // "current" names no record: the summary says which raffle it is.
  if (source.pathname.endsWith('/raffles/current/record')) {
    const { id } = (await fetchJson(new URL('../current', source))) as { id?: unknown };
    if (typeof id !== 'number') throw new Error('no current raffle');
    source.pathname = source.pathname.replace('/current/record', `/${id}/record`);
  }
  return fetchJson(source);
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
  const { ok, checks } = await verifyRaffleRecord(json);
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
