/**
 * The member's own races (spec §3 personal race history row), newest first; each opens its race
 * page. On a phone the time it finished goes under the race's link (issue 41: cut at 360 px).
 */
import { LEADERBOARD_DEFAULT_PAGE_SIZE } from '@telerace/protocol';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { PagedTable } from '../../components/table/PagedTable';
import { TimeAgoCell } from '../../components/table/TimeAgoCell';
import { bodyCell, numberCell, phoneOnly, wideOnly } from '../../components/table/table-styles';
import { usePagedQuery } from '../../components/table/use-paged-query';
import { formatRelativeTime } from '../../lib/relative-time';
import { formatLapTime } from '../race/race-format';
import { fetchRaceHistory, RACE_HISTORY_KEY } from './leaderboards-api';

export function RaceHistoryTable() {
  const { t, i18n } = useTranslation();
  const paged = usePagedQuery(RACE_HISTORY_KEY, fetchRaceHistory, {
    initialPageSize: LEADERBOARD_DEFAULT_PAGE_SIZE,
    refresh: false,
  });
  const now = new Date();
  return (
    <PagedTable
      paged={paged}
      rowsOf={(page) => page.data}
      texts={{
        caption: t('leaderboards.historyCaption'),
        pager: t('leaderboards.historyPagerName'),
        loadFailed: t('leaderboards.historyFailed'),
        empty: t('leaderboards.historyEmpty'),
      }}
      columns={[
        { label: t('leaderboards.columns.race') },
        { label: t('leaderboards.columns.finished'), wide: true },
        { label: t('leaderboards.columns.laps'), numeric: true },
        { label: t('leaderboards.columns.bestLap'), numeric: true },
      ]}
      headTestId="race-history-head"
    >
      {(row) => (
        <tr key={row.race_id} className="hover:bg-surface-2/50">
          <th scope="row" className={`${bodyCell} text-left`}>
            <Link
              to={`/races/${row.race_id}`}
              className="font-semibold text-accent underline-offset-2 hover:underline"
            >
              {t('leaderboards.openRace', { id: row.race_id })}
            </Link>
            <span className={`${phoneOnly} block text-xs font-normal text-muted`}>
              {formatRelativeTime(t, row.race_finished_at, now)}
            </span>
          </th>
          <TimeAgoCell at={row.race_finished_at} now={now} className={wideOnly} />
          <td className={numberCell}>{row.total_laps}</td>
          <td className={numberCell}>{formatLapTime(row.best_lap_time_ms, i18n.resolvedLanguage)}</td>
        </tr>
      )}
    </PagedTable>
  );
}
