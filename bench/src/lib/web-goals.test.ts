import { describe, expect, it } from 'vitest';
import { judge, type LighthouseRun, medians, missed, PUBLIC_PAGES, selectPages } from './web-goals.js';

const run = (over: Partial<LighthouseRun> = {}): LighthouseRun => ({
  score: 100,
  accessibility: 100,
  fcp_ms: 1000,
  lcp_ms: 1000,
  tbt_ms: 0,
  cls: 0,
  si_ms: 1000,
  ...over,
});

describe('selectPages', () => {
  it('takes every public page when none is named', () => {
    expect(selectPages(undefined)).toEqual([...PUBLIC_PAGES]);
    expect(selectPages(' ')).toHaveLength(12);
  });

  it('keeps the issue order whatever order they are named in', () => {
    expect(selectPages('/races/:id, /leaderboards')).toEqual(['/leaderboards', '/races/:id']);
  });

  it('refuses a page it does not know (a typo would measure nothing)', () => {
    expect(() => selectPages('/leaderboard')).toThrow(/unknown page\(s\) \/leaderboard/);
  });
});

describe('medians', () => {
  it('takes each metric from its own median run', () => {
    const m = medians([
      run({ score: 90, fcp_ms: 3000, tbt_ms: 10 }),
      run({ score: 99, fcp_ms: 1000, tbt_ms: 500 }),
      run({ score: 95, fcp_ms: 2000, tbt_ms: 200 }),
    ]);
    expect(m).toMatchObject({ score: 95, fcp_ms: 2000, tbt_ms: 200, scores: [90, 99, 95] });
  });

  it('averages the two middle runs of an even count', () => {
    expect(medians([run({ lcp_ms: 1000 }), run({ lcp_ms: 2000 })]).lcp_ms).toBe(1500);
  });
});

describe('judge', () => {
  const blank = medians([run({ fcp_ms: 1000, lcp_ms: 1000 })]);

  it('meets the goals at their bounds', () => {
    const goals = judge(
      '/leaderboards',
      medians([run({ score: 95, fcp_ms: 1300, lcp_ms: 1500, cls: 0.02, tbt_ms: 150 })]),
      blank,
    );
    expect(goals).toEqual({
      fcp_ratio: 1.3,
      lcp_ratio: 1.5,
      score: 'met',
      fcp: 'met',
      lcp: 'met',
      cls: 'met',
      tbt: 'met',
    });
    expect(missed(goals)).toBe(0);
  });

  it('misses each goal just past its bound', () => {
    const goals = judge(
      '/leaderboards',
      medians([run({ score: 94, fcp_ms: 1310, lcp_ms: 1510, cls: 0.021, tbt_ms: 151 })]),
      blank,
    );
    expect(goals).toMatchObject({
      score: 'MISSED',
      fcp: 'MISSED',
      lcp: 'MISSED',
      cls: 'MISSED',
      tbt: 'MISSED',
    });
    expect(missed(goals)).toBe(5);
  });

  it('judges total blocking time on the leaderboards page only', () => {
    expect(judge('/', medians([run({ tbt_ms: 900 })]), blank).tbt).toBeNull();
  });
});
