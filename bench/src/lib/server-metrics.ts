/**
 * The measured server's `GET /metrics` (Prometheus text, on METRICS_PORT): scraped and read as
 * samples. Histograms are read between two scrapes (their buckets only grow), which gives a
 * quantile of that interval alone, to the precision of the buckets.
 */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE_LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export async function scrapeMetrics(url: string): Promise<Sample[]> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`GET ${url}: HTTP ${res.status}`);
  const samples: Sample[] = [];
  for (const line of (await res.text()).split('\n')) {
    const match = SAMPLE_LINE.exec(line);
    if (!match) continue;
    const [, name = '', labelText = '', valueText = ''] = match;
    const labels: Record<string, string> = {};
    for (const [, key = '', value = ''] of labelText.matchAll(LABEL)) labels[key] = value;
    samples.push({ name, labels, value: Number(valueText.replace(/^\+Inf$/, 'Infinity')) });
  }
  return samples;
}

const matches = (sample: Sample, labels: Record<string, string>) =>
  Object.entries(labels).every(([key, value]) => sample.labels[key] === value);

/** One sample's value (NaN when absent). */
export function metric(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples.find((s) => s.name === name && matches(s, labels))?.value ?? Number.NaN;
}

/**
 * The `q` quantile (0–1) of what a histogram observed between two scrapes: the upper bound of
 * the bucket it falls in (Infinity past the last bound; NaN without observations).
 */
export function histogramQuantile(before: Sample[], after: Sample[], name: string, q: number): number {
  const buckets = (samples: Sample[]) =>
    new Map(
      samples
        .filter((s) => s.name === `${name}_bucket`)
        .map((s) => [Number((s.labels.le ?? '').replace(/^\+Inf$/, 'Infinity')), s.value]),
    );
  const start = buckets(before);
  const end = [...buckets(after)].sort(([a], [b]) => a - b);
  const count = (end.at(-1)?.[1] ?? 0) - (start.get(Number.POSITIVE_INFINITY) ?? 0);
  if (count <= 0) return Number.NaN;
  for (const [le, cumulative] of end) {
    if (cumulative - (start.get(le) ?? 0) >= q * count) return le;
  }
  return Number.POSITIVE_INFINITY;
}
