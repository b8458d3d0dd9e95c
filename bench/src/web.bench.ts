/**
 * `npm run bench -- web`: what the first page costs a visitor. Needs `npm run build` (builds nothing).
 *
 * 1. Downloads: Debian's Chromium (playwright-core) opens `/` of the built server as a signed-out
 *    visitor and lists every script and stylesheet it fetches until the network is idle (route
 *    chunks, the language's texts and all). Sizes are gzip (level 9, computed from each decoded
 *    body, so they do not depend on which encoding the server picked) and as transferred.
 * 2. Lighthouse 12 performance, mobile defaults (simulated Moto G Power on slow 4G, 4× slower CPU),
 *    on every public page of issue 45, signed out, with content to show (lib/web-scene.ts: boards,
 *    a race with laps, an open raffle), and once more on the raffle's page with 20,000 entries:
 *    LIGHTHOUSE_RUNS (3) cold runs per page, in the same Chromium with the e2e flags (no network
 *    besides loopback), the runs taking turns across pages and sites so that a busy minute of the
 *    machine does not fall on one page or one build alone. Printed and written: each metric's
 *    median over the runs, and the goals of issue 45 met or missed.
 *
 * Baseline, same run: a blank page — the same <head> and one heading, no script or stylesheet —
 * served by a second instance of the same built server (same headers, CSP, compression). It is
 * the best score this machine, browser and server allow; the gap to it is what the app costs, and
 * the goals on first and largest contentful paint are ratios to it.
 *
 * Options (environment): BENCH_WEB_COMPARE_DIST=<folder>[,<folder>…] also measures other web builds
 * (e.g. an older `apps/web/dist` copied aside, with its `dist-ssr` beside it: the server's renderer
 * of the public pages is taken from `<folder>/../dist-ssr`) in the same run, for before/after
 * numbers; BENCH_WEB_PAGES (comma-separated, e.g. `/leaderboards,/races/:id`; default every page)
 * measures some pages only; BENCH_WEB_RAFFLE_ENTRIES (20000; 0 skips) the big raffle's entries in
 * all, measured when `/raffles/:id` is among the pages.
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
import {
  GOALS,
  judge,
  type LighthouseRun,
  medians,
  missed,
  type PageGoals,
  type PageMedians,
  selectPages,
} from './lib/web-goals.js';
import {
  copyScene,
  dropScene,
  FIRST_ENTRIES,
  makeScene,
  sceneEnv,
  type WebScene,
  withMoreEntries,
} from './lib/web-scene.js';

const RUNS = Number(process.env.LIGHTHOUSE_RUNS ?? 3);
const RAFFLE_ENTRIES = Number(process.env.BENCH_WEB_RAFFLE_ENTRIES ?? 20_000);
const BLANK = 'blank page (baseline)';
const LANDING_JS_KB = 150;
const KB = 1000;

interface Downloads {
  scripts: number;
  js_gzip_kb: number;
  css_gzip_kb: number;
  transferred_kb: number;
  files: { url: string; type: string; gzip_bytes: number; transferred_bytes: number; encoding: string }[];
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

/**
 * Trace failures Lighthouse itself says to retry ("Please run Lighthouse again"), and the error
 * page Chromium shows when a load times out on a machine busy with other work (seen once in 75
 * runs while a browser-test suite ran beside the bench): one lost run must not lose the others.
 */
const RETRYABLE = new Set(['NO_NAVSTART', 'NO_FCP', 'NO_TRACING_STARTED', 'CHROME_INTERSTITIAL_ERROR']);

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
    if (attempt < 3 && RETRYABLE.has(lhr.runtimeError.code)) {
      console.info(`  ${url}: ${lhr.runtimeError.code}, run again`);
      return runLighthouse(url, attempt + 1);
    }
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

/** A site measured: the blank page, this build, or the build to compare with. */
interface Site {
  label: string;
  /** The web build it serves (undefined: this checkout's). */
  dist?: string;
  server: Running;
  /** Starts its server again, the same way (on a fresh copy of its scene). */
  restart: () => Promise<Running>;
  pages: readonly string[];
}

const exited = (server: Running) => server.child.exitCode !== null || server.child.signalCode !== null;

/** The page's address on a site: `:id` is the scene's race or raffle. */
function pathOf(page: string, scene: WebScene): string {
  if (page === '/races/:id') return `/races/${scene.raceId}`;
  if (page.startsWith('/raffles/:id')) return `/raffles/${scene.raffleId}`;
  return page;
}

type Results = Record<string, Record<string, { medians: PageMedians; runs: LighthouseRun[] }>>;

/**
 * RUNS rounds; in each, every page of every site once, the sites taking turns on a page. Prints
 * each run as it ends (a whole run of every page takes a few minutes).
 */
async function measurePages(sites: Site[], scene: WebScene, results: Results, pageLabel = (p: string) => p) {
  const slots = [...new Set(sites.flatMap((s) => s.pages))].flatMap((page) =>
    sites.filter((s) => s.pages.includes(page)).map((site) => ({ site, page })),
  );
  const total = slots.length * RUNS;
  const started = Date.now();
  let done = 0;
  for (let pass = 1; pass <= RUNS; pass += 1) {
    for (const { site, page } of slots) {
      // Something else on a shared machine has stopped every Telerace server at once (SIGTERM):
      // the site gets a new one, on a fresh copy of the same scene, and the run goes on.
      if (exited(site.server)) site.server = await site.restart();
      const run = await runLighthouse(`${site.server.url}${pathOf(page, scene)}`);
      const label = pageLabel(page);
      const bySite = results[site.label] ?? {};
      results[site.label] = bySite;
      const runs = [...(bySite[label]?.runs ?? []), run];
      bySite[label] = { medians: medians(runs), runs };
      done += 1;
      console.info(
        `[${done}/${total}, ${Math.round((Date.now() - started) / 1000)} s] ${site.label} ${label} run ${pass}: ` +
          `score ${run.score}, FCP ${run.fcp_ms} ms, LCP ${run.lcp_ms} ms, TBT ${run.tbt_ms} ms, CLS ${run.cls}`,
      );
    }
  }
}

export async function webBench(): Promise<void> {
  const pages = selectPages(process.env.BENCH_WEB_PAGES);
  const bigRaffle = RAFFLE_ENTRIES > 0 && pages.includes('/raffles/:id');
  const bigRafflePage = `/raffles/:id (${RAFFLE_ENTRIES.toLocaleString('en')} entries)`;
  const blankDir = blankSite();
  const compareDist = process.env.BENCH_WEB_COMPARE_DIST;
  const started: Running[] = [];
  const dataDirs: string[] = [];
  const start = async (env: Record<string, string> = {}) => {
    const server = await startTelerace(env);
    started.push(server);
    // Said at once: a server gone mid-run (signalled by something else on the machine) otherwise
    // shows only as Chromium's error page on the next run.
    server.child.once('exit', (code, signal) => {
      if (started.includes(server))
        console.warn(`web: the server at ${server.url} exited (${signal ?? code})`);
    });
    return server;
  };
  /** A server for a web build on its own copy of a scene folder. */
  const startOnScene = async (sceneDir: string, dist?: string) => {
    const dataDir = copyScene(sceneDir);
    dataDirs.push(dataDir);
    return start({ ...sceneEnv(dataDir), ...(dist ? { WEB_DIST_DIR: dist } : {}) });
  };
  // CHROME_PATH is what chrome-launcher reads; the e2e flags keep Chromium off the network.
  process.env.CHROME_PATH = CHROMIUM_PATH;
  let scene: WebScene | null = null;
  try {
    console.info('web: making the scene (boards, a race with laps, an open raffle)…');
    scene = await makeScene();
    const sceneDir = scene.dir;
    const apps: { label: string; dist?: string }[] = [{ label: 'telerace' }];
    for (const dist of compareDist?.split(',').filter(Boolean) ?? [])
      apps.push({ label: `compare: ${dist}`, dist });
    const startBlank = () => start({ WEB_DIST_DIR: blankDir });
    const sites: Site[] = [{ label: BLANK, server: await startBlank(), restart: startBlank, pages: ['/'] }];
    for (const app of apps) {
      const startApp = () => startOnScene(sceneDir, app.dist);
      sites.push({ ...app, server: await startApp(), restart: startApp, pages });
    }

    const downloads: Record<string, Downloads> = {};
    for (const site of sites) downloads[site.label] = await measureDownloads(site.server.url);

    const results: Results = {};
    console.info(`web: Lighthouse, ${RUNS} runs of ${pages.length} page(s) on ${apps.length} build(s)`);
    await measurePages(sites, scene, results);

    if (bigRaffle) {
      // The same raffle with a big stream's entries: each build once more on a copy of that scene.
      const first = sites.slice(1).map((site) => site.server);
      started.splice(0, started.length, ...started.filter((server) => !first.includes(server)));
      await Promise.all(first.map((server) => server.stop()));
      const bigDir = await withMoreEntries(scene, Math.max(0, RAFFLE_ENTRIES - FIRST_ENTRIES));
      dataDirs.push(bigDir);
      const bigSites: Site[] = [];
      for (const app of apps) {
        const startApp = () => startOnScene(bigDir, app.dist);
        bigSites.push({ ...app, server: await startApp(), restart: startApp, pages: ['/raffles/:id'] });
      }
      console.info(`web: the raffle's page with ${RAFFLE_ENTRIES} entries`);
      await measurePages(bigSites, scene, results, () => bigRafflePage);
    }

    printTable(
      'Landing page (/) downloads, signed-out visitor, until the network is idle',
      sites.map((t): Row => {
        const d = downloads[t.label] as Downloads;
        return {
          site: t.label,
          scripts: d.scripts,
          'JS KB gzip': d.js_gzip_kb,
          'CSS KB gzip': d.css_gzip_kb,
          'JS+CSS KB transferred': d.transferred_kb,
          [`target ≤ ${LANDING_JS_KB}`]:
            t.label === BLANK ? '' : d.js_gzip_kb <= LANDING_JS_KB ? 'met' : 'MISSED',
        };
      }),
    );

    const blank = results[BLANK]?.['/']?.medians;
    if (!blank) throw new Error('the blank page was not measured');
    const goals: Record<string, Record<string, PageGoals>> = {};
    const rows: Row[] = [];
    for (const [site, byPage] of Object.entries(results)) {
      for (const [page, { medians: m }] of Object.entries(byPage)) {
        const g = site === BLANK ? null : judge(page.replace(/ \(.*\)$/, ''), m, blank);
        if (g) goals[site] = { ...goals[site], [page]: g };
        rows.push({
          site,
          page,
          score: m.score,
          scores: m.scores.join(' '),
          'FCP ms': m.fcp_ms,
          'LCP ms': m.lcp_ms,
          'TBT ms': m.tbt_ms,
          CLS: m.cls,
          'FCP/blank': g ? g.fcp_ratio : '',
          'LCP/blank': g ? g.lcp_ratio : '',
          [`score ≥ ${GOALS.score}`]: g?.score ?? '',
          [`FCP ≤ ${GOALS.fcpRatio}×`]: g?.fcp ?? '',
          [`LCP ≤ ${GOALS.lcpRatio}×`]: g?.lcp ?? '',
          [`CLS ≤ ${GOALS.cls}`]: g?.cls ?? '',
          [`TBT ≤ ${GOALS.tbtMs} (${GOALS.tbtPage})`]: g?.tbt ?? '',
        });
      }
    }
    printTable(
      `Lighthouse 12 performance, mobile defaults, signed out: each metric's median of ${RUNS} runs; ratios to the blank page's`,
      rows,
    );
    for (const [site, byPage] of Object.entries(goals)) {
      const pagesMissing = Object.entries(byPage).filter(([, g]) => missed(g) > 0);
      console.info(
        `${site}: ${Object.keys(byPage).length - pagesMissing.length} of ${Object.keys(byPage).length} pages meet every goal` +
          (pagesMissing.length > 0 ? `; missed on ${pagesMissing.map(([p]) => p).join(', ')}` : ''),
      );
    }
    const file = writeResult('web', {
      lighthouse_runs: RUNS,
      pages,
      goals: { ...GOALS, landing_js_kb: LANDING_JS_KB },
      baseline:
        'blank page (same <head>, one heading, no script or stylesheet) served by the same built server',
      scene: {
        race_id: scene.raceId,
        raffle_id: scene.raffleId,
        raffle_entries: FIRST_ENTRIES,
        big_raffle_entries: bigRaffle ? Math.max(FIRST_ENTRIES, RAFFLE_ENTRIES) : null,
      },
      downloads,
      lighthouse: results,
      judged: goals,
    });
    console.info(`\nwritten: ${file}`);
  } finally {
    // A server killed by a signal has no exit left to wait for (Running.stop waits for one).
    await Promise.all(
      started
        .splice(0)
        .filter((s) => s.child.signalCode === null)
        .map((s) => s.stop()),
    );
    rmSync(blankDir, { recursive: true, force: true });
    for (const dir of dataDirs) dropScene(dir);
    if (scene) dropScene(scene.dir);
  }
}
