/**
 * `npm run bench -- web`: what the first page costs a visitor. Needs `npm run build` (builds nothing).
 *
 * 1. Downloads: Debian's Chromium (playwright-core) opens `/` of the built server as a signed-out
 *    visitor and lists every script and stylesheet it fetches until the network is idle (route
 *    chunks, the language's texts and all). Sizes are gzip (level 9, computed from each decoded
 *    body, so they do not depend on which encoding the server picked) and as transferred.
 * 2. Lighthouse 12 performance, mobile defaults (simulated Moto G Power on slow 4G), on `/`,
 *    `/leaderboards` and `/login`: the median of LIGHTHOUSE_RUNS (3) cold runs per page, in the
 *    same Chromium with the e2e flags (no network besides loopback).
 *
 * Baseline, same run: a blank page — the same <head> and one heading, no script or stylesheet —
 * served by a second instance of the same built server (same headers, CSP, compression). It is
 * the best score this machine, browser and server allow; the gap to it is what the app costs.
 * BENCH_WEB_COMPARE_DIST=<folder> also measures another web build (e.g. an older `apps/web/dist`
 * copied aside) in the same run, for before/after numbers.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../e2e/chromium.js';
import { ROOT, type Running, startTelerace } from './lib/processes.js';
import { printTable, type Row, round, writeResult } from './lib/report.js';

const RUNS = Number(process.env.LIGHTHOUSE_RUNS ?? 3);
const PAGES = ['/', '/leaderboards', '/login'] as const;
const TARGETS = { landingJsKb: 150, lighthouse: 95 };
const KB = 1000;

interface Downloads {
  scripts: number;
  js_gzip_kb: number;
  css_gzip_kb: number;
  transferred_kb: number;
  files: { url: string; type: string; gzip_bytes: number; transferred_bytes: number; encoding: string }[];
}

interface LighthouseRun {
  score: number;
  /** Lighthouse's accessibility score of the same run (0–100; it stays at 100). */
  accessibility: number;
  fcp_ms: number;
  lcp_ms: number;
  tbt_ms: number;
  cls: number;
  si_ms: number;
}

/** A web build folder with only a blank index.html, the <head> of the real one kept. */
function blankSite(): string {
  const dir = mkdtempSync(join(tmpdir(), 'telerace-blank-site-'));
  const html = readFileSync(join(ROOT, 'apps/web/index.html'), 'utf8');
  const head = (html.match(/<head>([\s\S]*?)<\/head>/)?.[1] ?? '')
    .replace(/<script[\s\S]*?<\/script>/g, '')
    .replace(/<link rel="icon"[^>]*>/g, '');
  writeFileSync(
    join(dir, 'index.html'),
    `<!doctype html>\n<html lang="en"><head>${head}</head><body><main><h1>Telerace</h1><p>Drive real RC cars from your browser, live.</p></main></body></html>\n`,
  );
  return dir;
}

async function measureDownloads(url: string): Promise<Downloads> {
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage();
    const pending: Promise<Downloads['files'][number] | null>[] = [];
    page.on('response', (response) => {
      const type = response.request().resourceType();
      if (type !== 'script' && type !== 'stylesheet') return;
      pending.push(
        (async () => {
          const [body, sizes, encoding] = await Promise.all([
            response.body(),
            response.request().sizes(),
            response.headerValue('content-encoding'),
          ]);
          return {
            url: new URL(response.url()).pathname,
            type,
            gzip_bytes: gzipSync(body, { level: 9 }).length,
            transferred_bytes: sizes.responseBodySize,
            encoding: encoding ?? 'identity',
          };
        })().catch(() => null),
      );
    });
    await page.goto(`${url}/`, { waitUntil: 'networkidle' });
    const files = (await Promise.all(pending)).filter((f) => f !== null);
    const sum = (list: typeof files, key: 'gzip_bytes' | 'transferred_bytes') =>
      round(list.reduce((total, f) => total + f[key], 0) / KB, 1);
    const scripts = files.filter((f) => f.type === 'script');
    return {
      scripts: scripts.length,
      js_gzip_kb: sum(scripts, 'gzip_bytes'),
      css_gzip_kb: sum(
        files.filter((f) => f.type === 'stylesheet'),
        'gzip_bytes',
      ),
      transferred_kb: sum(files, 'transferred_bytes'),
      files,
    };
  } finally {
    await browser.close();
  }
}

/** Trace failures Lighthouse itself says to retry ("Please run Lighthouse again"). */
const RETRYABLE = new Set(['NO_NAVSTART', 'NO_FCP', 'NO_TRACING_STARTED']);

/** One cold Lighthouse run in a Chromium of its own (reusing one browser gave NO_NAVSTART now and then). */
async function runLighthouse(url: string, attempt = 1): Promise<LighthouseRun> {
  const chrome = await chromeLauncher.launch({ chromePath: CHROMIUM_PATH, chromeFlags: CHROMIUM_ARGS });
  let result: Awaited<ReturnType<typeof lighthouse>>;
  try {
    result = await lighthouse(url, {
      port: chrome.port,
      output: 'json',
      logLevel: 'error',
      onlyCategories: ['performance', 'accessibility'],
    });
  } finally {
    chrome.kill();
  }
  if (!result) throw new Error(`Lighthouse returned nothing for ${url}`);
  const { lhr } = result;
  if (lhr.runtimeError) {
    if (attempt < 3 && RETRYABLE.has(lhr.runtimeError.code)) return runLighthouse(url, attempt + 1);
    throw new Error(`Lighthouse on ${url}: ${lhr.runtimeError.message}`);
  }
  const metric = (id: string) => lhr.audits[id]?.numericValue ?? Number.NaN;
  return {
    score: Math.round((lhr.categories.performance?.score ?? 0) * 100),
    accessibility: Math.round((lhr.categories.accessibility?.score ?? 0) * 100),
    fcp_ms: Math.round(metric('first-contentful-paint')),
    lcp_ms: Math.round(metric('largest-contentful-paint')),
    tbt_ms: Math.round(metric('total-blocking-time')),
    cls: round(metric('cumulative-layout-shift'), 3),
    si_ms: Math.round(metric('speed-index')),
  };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

/** The run with the median score (its metrics belong together), plus every score. */
function medianRun(runs: LighthouseRun[]): LighthouseRun & { scores: number[] } {
  const score = median(runs.map((r) => r.score));
  const run = runs.find((r) => r.score === score) ?? runs[0];
  if (!run) throw new Error('no Lighthouse run');
  return { ...run, scores: runs.map((r) => r.score) };
}

interface Target {
  label: string;
  server: Running;
  pages: readonly string[];
}

export async function webBench(): Promise<void> {
  const blankDir = blankSite();
  const compareDist = process.env.BENCH_WEB_COMPARE_DIST;
  const started: Running[] = [];
  const start = async (env: Record<string, string> = {}) => {
    const server = await startTelerace(env);
    started.push(server);
    return server;
  };
  // CHROME_PATH is what chrome-launcher reads; the e2e flags keep Chromium off the network.
  process.env.CHROME_PATH = CHROMIUM_PATH;
  try {
    const targets: Target[] = [
      { label: 'blank page (baseline)', server: await start({ WEB_DIST_DIR: blankDir }), pages: ['/'] },
      { label: 'telerace', server: await start(), pages: PAGES },
    ];
    if (compareDist) {
      targets.push({
        label: `compare: ${compareDist}`,
        server: await start({ WEB_DIST_DIR: compareDist }),
        pages: PAGES,
      });
    }

    const downloads: Record<string, Downloads> = {};
    for (const target of targets) downloads[target.label] = await measureDownloads(target.server.url);

    const lighthouseResults: Record<string, Record<string, ReturnType<typeof medianRun>>> = {};
    for (const target of targets) {
      lighthouseResults[target.label] = {};
      for (const path of target.pages) {
        const runs: LighthouseRun[] = [];
        for (let i = 0; i < RUNS; i += 1) runs.push(await runLighthouse(`${target.server.url}${path}`));
        (lighthouseResults[target.label] as Record<string, ReturnType<typeof medianRun>>)[path] =
          medianRun(runs);
      }
    }

    printTable(
      'Landing page (/) downloads, signed-out visitor, until the network is idle',
      targets.map((t): Row => {
        const d = downloads[t.label] as Downloads;
        return {
          site: t.label,
          scripts: d.scripts,
          'JS KB gzip': d.js_gzip_kb,
          'CSS KB gzip': d.css_gzip_kb,
          'JS+CSS KB transferred': d.transferred_kb,
          [`target ≤ ${TARGETS.landingJsKb}`]:
            t.label === 'blank page (baseline)' ? '' : d.js_gzip_kb <= TARGETS.landingJsKb ? 'met' : 'MISSED',
        };
      }),
    );
    printTable(
      `Lighthouse 12 performance (and the same run's accessibility score), mobile defaults, median of ${RUNS} runs`,
      targets.flatMap((t) =>
        t.pages.map((path): Row => {
          const r = lighthouseResults[t.label]?.[path] as ReturnType<typeof medianRun>;
          return {
            site: t.label,
            page: path,
            score: r.score,
            scores: r.scores.join(' '),
            'FCP ms': r.fcp_ms,
            'LCP ms': r.lcp_ms,
            'TBT ms': r.tbt_ms,
            CLS: r.cls,
            'SI ms': r.si_ms,
            accessibility: r.accessibility,
            [`target ≥ ${TARGETS.lighthouse}`]:
              t.label === 'blank page (baseline)' ? '' : r.score >= TARGETS.lighthouse ? 'met' : 'MISSED',
          };
        }),
      ),
    );
    const file = writeResult('web', {
      lighthouse_runs: RUNS,
      targets: TARGETS,
      baseline:
        'blank page (same <head>, one heading, no script or stylesheet) served by the same built server',
      downloads,
      lighthouse: lighthouseResults,
    });
    console.info(`\nwritten: ${file}`);
  } finally {
    await Promise.all(started.map((s) => s.stop()));
    rmSync(blankDir, { recursive: true, force: true });
  }
}
