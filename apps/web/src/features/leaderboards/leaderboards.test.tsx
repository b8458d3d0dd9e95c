import type { LeaderboardRow, RaceDetail } from '@telerace/protocol';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DATA_PRELOADS } from '../../data-preloads';
import { json, member, renderApp, resetBrowser, stubServer } from '../../test/app';
import { lapChart } from './lap-chart';

function leaderRow(rank: number): LeaderboardRow {
  return {
    user_id: rank,
    username: `racer${rank}#${rank}`,
    avatar_url: null,
    best_race_laps: 40 - rank,
    best_race_lap_time: 10_000 + rank * 123,
    total_races: rank,
  };
}

/** The boards of 23 members, paged as the server does. */
function boardRoute({ url }: { url: URL }) {
  const page = Number(url.searchParams.get('page'));
  const limit = Number(url.searchParams.get('limit'));
  const all = Array.from({ length: 23 }, (_, i) => leaderRow(i + 1));
  return json(200, { data: all.slice((page - 1) * limit, page * limit), totalCount: all.length });
}

type Participant = RaceDetail['participants'][number];

/**
 * A participant of the race below, its laps as [lap time ms, second of 20:00 it ended]; the lap
 * count and the best lap follow from them, as the server computes them.
 */
function participant(
  who: Pick<Participant, 'position' | 'user_id' | 'username' | 'car_id' | 'car_name'>,
  laps: [lapMs: number, endedAtSecond: number][],
): Participant {
  return {
    ...who,
    avatar_url: null,
    total_laps: laps.length,
    best_lap_time_ms: Math.min(...laps.map(([lapMs]) => lapMs)),
    laps: laps.map(([lapMs, second], i) => ({
      lap_number: i + 1,
      lap_time_ms: lapMs,
      completed_at: `2026-12-01T20:00:${String(second).padStart(2, '0')}.000Z`,
    })),
  };
}

const race: RaceDetail = {
  id: 41,
  started_at: '2026-12-01T20:00:00.000Z',
  finished_at: '2026-12-01T20:03:00.000Z',
  participants: [
    participant({ position: 2, user_id: 5, username: 'slowpoke#5', car_id: 105, car_name: 'Blue Bolt' }, [
      [15_000, 20],
      [14_000, 34],
    ]),
    participant({ position: 1, user_id: 12, username: 'speedy#12', car_id: 103, car_name: 'Red Comet' }, [
      [12_000, 17],
      [11_111, 28],
      [11_500, 40],
    ]),
  ],
};

beforeEach(async () => {
  await resetBrowser();
});
afterEach(() => vi.unstubAllGlobals());

describe('Leaderboards page', () => {
  it('shows the all-time board 10 rows a page, with names, best laps in seconds and paging', async () => {
    const user = userEvent.setup();
    const fetchMock = stubServer({ session: null, routes: { 'GET /api/leaderboards/all-time': boardRoute } });
    renderApp('/leaderboards');
    const table = await screen.findByRole('table', { name: 'All-time leaderboard' });
    const rows = within(table).getAllByRole('row');
    expect(rows).toHaveLength(11);
    // The phone's line under the name (laps and races), then the columns a wider screen shows.
    expect(rows[1]).toHaveTextContent('1Rracer1Best race (laps): 39 · Races: 13910.121');
    expect(fetchMock.mock.calls.some(([url]) => url === '/api/leaderboards/all-time?page=1&limit=10')).toBe(
      true,
    );
    expect(screen.queryByRole('tab', { name: 'My races' })).not.toBeInTheDocument();
    expect(screen.getByText('Log in to see your race history.')).toBeVisible();

    const pager = within(screen.getByRole('navigation', { name: 'Pages of All-time leaderboard' }));
    expect(pager.getByText('Page 1 of 3')).toBeVisible();
    await user.click(pager.getByRole('button', { name: 'Next' }));
    await waitFor(() => expect(within(table).getAllByRole('row')[1]).toHaveTextContent(/^11Rracer11/));
    await user.selectOptions(pager.getByRole('combobox', { name: 'Rows per page' }), '25');
    await waitFor(() => expect(within(table).getAllByRole('row')).toHaveLength(24));
    expect(pager.getByText('Page 1 of 1')).toBeVisible();
  });

  it('draws the board without Intl’s number formatting (its first use is a long task on a phone, issue 45)', async () => {
    const numberFormat = vi.spyOn(Intl, 'NumberFormat');
    const numberToLocale = vi.spyOn(Number.prototype, 'toLocaleString');
    try {
      stubServer({
        session: null,
        routes: {
          'GET /api/leaderboards/all-time': () => json(200, { data: [leaderRow(1)], totalCount: 12_345 }),
        },
      });
      renderApp('/leaderboards');
      const table = await screen.findByRole('table', { name: 'All-time leaderboard' });
      expect(within(table).getAllByRole('row')[1]).toHaveTextContent('10.12');
      expect(screen.getByText('Total: 12,345')).toBeVisible();
      expect(numberFormat).not.toHaveBeenCalled();
      expect(numberToLocale).not.toHaveBeenCalled();
    } finally {
      numberFormat.mockRestore();
      numberToLocale.mockRestore();
    }
  });

  it('asks for the first page exactly as index.html preloads it, even signed in (no token, no header)', async () => {
    const fetchMock = stubServer({
      session: member,
      routes: { 'GET /api/leaderboards/all-time': boardRoute },
    });
    renderApp('/leaderboards');
    await screen.findByRole('table', { name: 'All-time leaderboard' });
    const [preloaded] = DATA_PRELOADS.leaderboards ?? [];
    const calls = fetchMock.mock.calls.filter(([url]) => String(url).startsWith('/api/leaderboards/'));
    // What <link rel="preload" as="fetch" crossorigin="use-credentials"> sends: a browser hands its
    // answer only to the same URL, credentials mode and headers.
    expect(calls).toEqual([[preloaded, { credentials: 'include' }]]);
  });

  it('holds the board’s place while its first page loads: headings and 10 rows, then the rows', async () => {
    let answer: ((response: Response) => void) | undefined;
    stubServer({
      session: null,
      routes: {
        'GET /api/leaderboards/all-time': () =>
          new Promise<Response>((resolve) => {
            answer = resolve;
          }),
      },
    });
    renderApp('/leaderboards');
    const placeholder = await waitFor(() => {
      const table = document.querySelector('[inert] table');
      expect(table).not.toBeNull();
      return table;
    });
    expect(screen.getByRole('status')).toHaveTextContent('Loading');
    expect(placeholder?.querySelectorAll('thead th')).toHaveLength(5);
    expect(placeholder?.querySelectorAll('tbody tr')).toHaveLength(10);
    // The page asked for the board: its answer can now be sent.
    await waitFor(() => expect(answer).toBeDefined());
    answer?.(boardRoute({ url: new URL('http://x/api/leaderboards/all-time?page=1&limit=10') }));
    const table = await screen.findByRole('table', { name: 'All-time leaderboard' });
    expect(within(table).getAllByRole('row')).toHaveLength(11);
    expect(document.querySelector('[inert] table')).toBeNull();
  });

  it('names the season tab in words, never "Season 0" (issue 41), and shows the empty and error states', async () => {
    const user = userEvent.setup();
    stubServer({
      session: null,
      routes: {
        'GET /api/leaderboards/all-time': () => json(500, { error: 'boom', errorKey: 'errors.internal' }),
        'GET /api/leaderboards/season/0': () => json(200, { data: [], totalCount: 0 }),
      },
    });
    renderApp('/leaderboards');
    expect(await screen.findByRole('alert')).toHaveTextContent('Could not load the leaderboard.');
    expect(screen.queryByRole('tab', { name: /\d/ })).toBeNull();
    await user.click(screen.getByRole('tab', { name: 'This season' }));
    expect(await screen.findByText('No races yet. Be the first on the board!')).toBeVisible();
  });

  it("shows a signed-in member's race history, each race opening its page with the lap chart", async () => {
    const user = userEvent.setup();
    stubServer({
      session: member,
      routes: {
        'GET /api/leaderboards/all-time': boardRoute,
        'GET /api/me/race-history': () =>
          json(200, {
            data: [
              {
                race_id: 41,
                race_finished_at: '2026-12-01T20:03:00.000Z',
                total_laps: 3,
                best_lap_time_ms: 11_111,
              },
            ],
            totalCount: 1,
          }),
        'GET /api/races/41': () => json(200, race),
      },
    });
    const { router } = renderApp('/leaderboards?tab=history');
    const history = await screen.findByRole('table', { name: 'My race history' });
    expect(within(history).getAllByRole('row')[1]).toHaveTextContent('Race #41');
    expect(within(history).getAllByRole('row')[1]).toHaveTextContent('311.11');
    await user.click(within(history).getByRole('link', { name: 'Race #41' }));
    expect(router.state.location.pathname).toBe('/races/41');

    const participants = await screen.findByRole('table', { name: 'Participants' });
    const rows = within(participants).getAllByRole('row');
    // The car twice: under the name for a phone, in its column for a wider screen.
    expect(rows[1]).toHaveTextContent('1SspeedyRed CometRed Comet311.11');
    expect(rows[2]).toHaveTextContent('2SslowpokeBlue BoltBlue Bolt214.00');
    const chart = screen.getByRole('img', { name: /Lap times/ });
    expect(chart).toHaveAccessibleName('Lap times Lap time in seconds for each lap, one line per driver.');
    const series = within(chart).getAllByTestId('race-chart-series');
    expect(series.map((s) => s.getAttribute('data-driver'))).toEqual(['speedy', 'slowpoke']);
    expect(series[0]?.querySelectorAll('circle')).toHaveLength(3);
    expect(series[1]?.querySelectorAll('circle')).toHaveLength(2);
    expect(screen.getByRole('table', { name: 'Lap times per driver (s)' })).toBeInTheDocument();
  });

  it('says when a race does not exist', async () => {
    stubServer({
      session: null,
      routes: { 'GET /api/races/999': () => json(404, { error: 'nope', errorKey: 'errors.raceNotFound' }) },
    });
    renderApp('/races/999');
    expect(await screen.findByTestId('race-not-found')).toHaveTextContent(
      'This race does not exist or has not finished yet.',
    );
    expect(screen.getByRole('heading', { level: 1, name: 'Race not found' })).toBeVisible();
  });
});

describe('on a phone (issue 41)', () => {
  /** A screen under 640 px: the styles' phone width matches. */
  function onAPhone() {
    vi.stubGlobal('matchMedia', (query: string) => ({
      matches: query.includes('max-width'),
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
    }));
  }
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it("a board's row keeps every value in sight: laps and races under the name, their columns left out", async () => {
    stubServer({ session: null, routes: { 'GET /api/leaderboards/all-time': boardRoute } });
    renderApp('/leaderboards');
    const table = await screen.findByRole('table', { name: 'All-time leaderboard' });
    const [head, first] = within(table).getAllByRole('row');
    const phoneHidden = (row: HTMLElement | undefined) =>
      [...(row?.children ?? [])]
        .filter((cell) => cell.classList.contains('max-sm:hidden'))
        .map((c) => c.textContent);
    expect(phoneHidden(head)).toEqual(['Best race (laps)', 'Races']);
    expect(phoneHidden(first)).toEqual(['39', '1']);
    const name = within(first as HTMLElement).getByRole('rowheader');
    expect(name).toHaveTextContent('racer1Best race (laps): 39 · Races: 1');
    expect(name.querySelector('.sm\\:hidden')).toHaveTextContent('Best race (laps): 39 · Races: 1');
  });

  it('a race in my history keeps when it finished under its link', async () => {
    stubServer({
      session: member,
      routes: {
        'GET /api/leaderboards/all-time': boardRoute,
        'GET /api/me/race-history': () =>
          json(200, {
            data: [
              {
                race_id: 41,
                race_finished_at: new Date().toISOString(),
                total_laps: 3,
                best_lap_time_ms: 11_111,
              },
            ],
            totalCount: 1,
          }),
      },
    });
    renderApp('/leaderboards?tab=history');
    const history = await screen.findByRole('table', { name: 'My race history' });
    const [head, row] = within(history).getAllByRole('row');
    expect(head?.querySelector('.max-sm\\:hidden')).toHaveTextContent('Finished');
    const race = within(row as HTMLElement).getByRole('rowheader');
    expect(race.querySelector('.sm\\:hidden')?.textContent).toBe(
      row?.querySelector('td.max-sm\\:hidden')?.textContent,
    );
  });

  it('the lap chart draws larger labels and fewer ticks', async () => {
    onAPhone();
    const many: RaceDetail = {
      ...race,
      participants: race.participants.map((p) => ({
        ...p,
        laps: Array.from({ length: 12 }, (_, i) => ({
          lap_number: i + 1,
          lap_time_ms: 10_000 + i * 700,
          completed_at: p.laps[0]?.completed_at ?? '',
        })),
      })),
    };
    stubServer({ session: null, routes: { 'GET /api/races/41': () => json(200, many) } });
    renderApp('/races/41');
    const chart = await screen.findByTestId('race-chart');
    // The participants keep their car under the name; its column is left out.
    const participants = screen.getByRole('table', { name: 'Participants' });
    const [head, first] = within(participants).getAllByRole('row');
    expect(head?.querySelector('.max-sm\\:hidden')).toHaveTextContent('Car');
    expect(
      within(first as HTMLElement)
        .getByRole('rowheader')
        .querySelector('.sm\\:hidden'),
    ).toHaveTextContent('Red Comet');
    // 340 units drawn across a ~300 px phone: 15-unit text is about 13 px.
    expect(chart.getAttribute('viewBox')).toBe('0 0 340 260');
    expect(chart.querySelector('g[font-size]')).toHaveAttribute('font-size', '15');
    const xLabels = [...chart.querySelectorAll('text[text-anchor="middle"]')].filter((t) =>
      /^\d+$/.test(t.textContent ?? ''),
    );
    expect(xLabels.length).toBeLessThanOrEqual(6);
  });
});

describe('lapChart', () => {
  const box = {
    width: 400,
    height: 200,
    margin: { top: 0, right: 0, bottom: 0, left: 0 },
    ticks: { x: 8, y: 5 },
  };

  it('puts lap 1 on the left, the last lap on the right and the fastest lap lowest', () => {
    const chart = lapChart(
      [
        {
          id: 1,
          name: 'a',
          laps: [
            { lap_number: 2, lap_time_ms: 10_000 },
            { lap_number: 1, lap_time_ms: 12_000 },
          ],
        },
        { id: 2, name: 'b', laps: [{ lap_number: 3, lap_time_ms: 11_000 }] },
      ],
      box,
    );
    const [a, b] = chart.lines;
    expect(a?.points.map((p) => p.lap)).toEqual([1, 2]);
    expect(a?.points[0]?.x).toBe(0);
    expect(b?.points[0]?.x).toBe(400);
    expect(a?.points[1]?.y).toBeGreaterThan(a?.points[0]?.y ?? 0);
    expect(a?.polyline).toBe(`${a?.points[0]?.x},${a?.points[0]?.y} ${a?.points[1]?.x},${a?.points[1]?.y}`);
    expect(chart.xTicks.map((t) => t.value)).toEqual([1, 2, 3]);
    // The y axis covers every lap time, with round numbers.
    const values = chart.yTicks.map((t) => t.value);
    expect(Math.min(...values)).toBeLessThanOrEqual(10);
    expect(Math.max(...values)).toBeGreaterThanOrEqual(12);
    for (const point of chart.lines.flatMap((l) => l.points)) {
      expect(point.y).toBeGreaterThanOrEqual(0);
      expect(point.y).toBeLessThanOrEqual(200);
    }
  });

  it('centres a single lap and keeps one lap time off the frame', () => {
    const chart = lapChart([{ id: 1, name: 'a', laps: [{ lap_number: 1, lap_time_ms: 9_990 }] }], box);
    expect(chart.lines[0]?.points[0]).toMatchObject({ x: 200, lap: 1, seconds: 9.99 });
    expect(chart.lines[0]?.points[0]?.y).toBeGreaterThan(0);
    expect(chart.lines[0]?.points[0]?.y).toBeLessThan(200);
  });
});
