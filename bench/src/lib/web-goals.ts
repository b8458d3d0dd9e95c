/**
 * The arithmetic of `npm run bench -- web` (web.bench.ts): which pages to measure, a page's
 * medians over its Lighthouse runs, and the goals of issue 45 ("first paint on a phone") each
 * median meets or misses, next to the blank page of the same run.
 */

/** The public pages of issue 45, as routes: `:id` is the scene's race or raffle. */
export const PUBLIC_PAGES = [
  '/',
  '/leaderboards',
  '/raffles/:id',
  '/races/:id',
  '/claim',
  '/login',
  '/signup',
  '/forgot-password',
  '/faq',
  '/about',
  '/privacy-policy',
  '/terms-of-service',
] as const;

export const GOALS = {
  /** Lighthouse performance score, every page. */
  score: 95,
  /** First contentful paint, at most this many times the blank page's. */
  fcpRatio: 1.3,
  /** Largest contentful paint, at most this many times the blank page's. */
  lcpRatio: 1.5,
  cls: 0.02,
  /** Total blocking time on the leaderboards page (issue 45 point 3). */
  tbtMs: 150,
  tbtPage: '/leaderboards',
} as const;

/** The pages BENCH_WEB_PAGES names (comma-separated routes), in the order; all when unset. */
export function selectPages(list: string | undefined): string[] {
  if (!list?.trim()) return [...PUBLIC_PAGES];
  const asked = list.split(',').map((p) => p.trim());
  const unknown = asked.filter((p) => !(PUBLIC_PAGES as readonly string[]).includes(p));
  if (unknown.length > 0)
    throw new Error(
      `BENCH_WEB_PAGES: unknown page(s) ${unknown.join(', ')}; known: ${PUBLIC_PAGES.join(', ')}`,
    );
  return PUBLIC_PAGES.filter((p) => asked.includes(p));
}

export interface LighthouseRun {
  score: number;
  /** Lighthouse's accessibility score of the same run (0–100; it stays at 100). */
  accessibility: number;
  fcp_ms: number;
  lcp_ms: number;
  tbt_ms: number;
  cls: number;
  si_ms: number;
}

/** Each metric's median over the runs (not one run's), and every run's score. */
export type PageMedians = LighthouseRun & { scores: number[] };

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

export function medians(runs: LighthouseRun[]): PageMedians {
  if (runs.length === 0) throw new Error('no Lighthouse run');
  const of = (key: keyof LighthouseRun) => median(runs.map((r) => r[key]));
  return {
    score: of('score'),
    accessibility: of('accessibility'),
    fcp_ms: of('fcp_ms'),
    lcp_ms: of('lcp_ms'),
    tbt_ms: of('tbt_ms'),
    cls: of('cls'),
    si_ms: of('si_ms'),
    scores: runs.map((r) => r.score),
  };
}

export type Verdict = 'met' | 'MISSED';

export interface PageGoals {
  fcp_ratio: number;
  lcp_ratio: number;
  score: Verdict;
  fcp: Verdict;
  lcp: Verdict;
  cls: Verdict;
  /** Judged on the leaderboards page only. */
  tbt: Verdict | null;
}

const verdict = (met: boolean): Verdict => (met ? 'met' : 'MISSED');

/** A page's medians against the goals, its paints as ratios to the blank page's of the same run. */
export function judge(page: string, m: PageMedians, blank: PageMedians): PageGoals {
  const fcpRatio = Math.round((m.fcp_ms / blank.fcp_ms) * 100) / 100;
  const lcpRatio = Math.round((m.lcp_ms / blank.lcp_ms) * 100) / 100;
  return {
    fcp_ratio: fcpRatio,
    lcp_ratio: lcpRatio,
    score: verdict(m.score >= GOALS.score),
    fcp: verdict(fcpRatio <= GOALS.fcpRatio),
    lcp: verdict(lcpRatio <= GOALS.lcpRatio),
    cls: verdict(m.cls <= GOALS.cls),
    tbt: page === GOALS.tbtPage ? verdict(m.tbt_ms <= GOALS.tbtMs) : null,
  };
}

/** How many of a page's goals it missed. */
export const missed = (goals: PageGoals): number =>
  [goals.score, goals.fcp, goals.lcp, goals.cls, goals.tbt].filter((v) => v === 'MISSED').length;
