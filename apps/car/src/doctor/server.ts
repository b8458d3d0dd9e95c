/**
 * Checks 1 and 3: the server answers `/api/ready` over HTTP(S), with TLS failures named plainly,
 * and the car's clock agrees with the server's `Date` header.
 */
import { type CheckResult, clockVerdict, fail, pass } from './format.js';

/** What check 1 saw of the server, for check 3. */
export interface ServerProbe {
  dateMs: number;
  sentAtMs: number;
  receivedAtMs: number;
}

/** `<server>/api/ready` over http(s) for a server URL the agent accepts (ws(s):// too). */
export function readyUrl(server: string): URL {
  const url = new URL(server);
  if (url.protocol === 'ws:') url.protocol = 'http:';
  else if (url.protocol === 'wss:') url.protocol = 'https:';
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/api/ready`;
  url.search = '';
  url.hash = '';
  return url;
}

const TLS_CODES: Record<string, string> = {
  CERT_HAS_EXPIRED: "its certificate has expired (or the car's clock is far off)",
  CERT_NOT_YET_VALID: "its certificate is not valid yet (or the car's clock is far behind)",
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'its certificate chain ends in a self-signed certificate',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its certificate chain is incomplete (no intermediate certificate)',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: "its certificate's issuer is unknown to this car",
  ERR_TLS_CERT_ALTNAME_INVALID: 'its certificate is for another name',
};

/** The reason and the fix for a fetch that failed before any answer. */
function connectionFailure(url: URL, error: unknown): CheckResult {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const code = cause?.code ?? (error as { name?: string }).name ?? '';
  const where = url.host;
  if (code === 'TimeoutError' || code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ETIMEDOUT')
    return fail(
      `no answer from ${where} within ${REQUEST_TIMEOUT_MS / 1000} s`,
      "check the car's network (Wi-Fi or 4G up? a firewall dropping the server's port?) and --server",
    );
  if (code === 'ECONNREFUSED')
    return fail(
      `nothing listens at ${where} (connection refused)`,
      'start the server, or correct --server (host and port)',
    );
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return fail(
      `the name ${url.hostname} does not resolve (${code})`,
      "correct --server, or check the car's DNS and Internet access",
    );
  if (code === 'ECONNRESET' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH')
    return fail(
      `${where} unreachable (${code})`,
      "check the car's network (Wi-Fi or 4G) and any firewall between",
    );
  const tls = TLS_CODES[code];
  if (tls || code.startsWith('ERR_TLS') || code.startsWith('ERR_SSL'))
    return fail(
      `TLS refused by the car: ${tls ?? cause?.message ?? code} (${code})`,
      "fix the server's certificate (a full chain for this name, e.g. Let's Encrypt), and check the car's date",
    );
  return fail(
    `${where} did not answer: ${cause?.message ?? (error as Error).message}${code ? ` (${code})` : ''}`,
    "check --server and the car's network",
  );
}

const REQUEST_TIMEOUT_MS = 5_000;

export async function checkServer(
  server: string,
): Promise<{ result: CheckResult; answered: boolean; probe?: ServerProbe }> {
  const url = readyUrl(server);
  const sentAtMs = Date.now();
  const started = performance.now();
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    await response.arrayBuffer();
  } catch (error) {
    return { result: connectionFailure(url, error), answered: false };
  }
  const receivedAtMs = Date.now();
  const ms = Math.round(performance.now() - started);
  const date = Date.parse(response.headers.get('date') ?? '');
  const probe = Number.isNaN(date) ? undefined : { dateMs: date, sentAtMs, receivedAtMs };
  const withProbe = (result: CheckResult) => ({ result, answered: true, ...(probe ? { probe } : {}) });
  if (response.status === 200) return withProbe(pass(`${url.origin} ready (${ms} ms)`));
  if (response.status === 503)
    return withProbe(
      fail(
        `${url.origin} answers but is not ready (503: database unreachable or starting)`,
        "check the server's log",
      ),
    );
  return withProbe(
    fail(
      `${url} answered HTTP ${response.status}, not a Telerace server's ready probe`,
      '--server is the address of the Telerace site (what drivers open), without /api',
    ),
  );
}

export function checkClock(probe: ServerProbe | undefined): CheckResult {
  if (!probe)
    return fail('the server sent no Date header', 'check that --server is a Telerace server (check 1)');
  return clockVerdict(probe.dateMs, probe.sentAtMs, probe.receivedAtMs);
}
