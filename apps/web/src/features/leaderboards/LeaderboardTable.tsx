/**
 * A leaderboard (spec §3 leaderboard row): rank, avatar and name, best race's laps and best lap
 * (seconds, 2 decimals), races run; paged 10/25/50/100 (default 10), with loading, empty and
 * error states. Used for all time and for a season. On a phone the laps and races columns give
 * way to a line under the name (issue 41: the table was cut at 360 px).
 */
import { LEADERBOARD_DEFAULT_PAGE_SIZE, type LeaderboardResponse } from '@telerace/protocol';
import { useTranslation } from 'react-i18next';
import { Avatar } from '../../components/layout/Avatar';
import { PagedTable } from '../../components/table/PagedTable';
import { bodyCell, numberCell, phoneOnly, wideOnly } from '../../components/table/table-styles';
import { usePagedQuery } from '../../components/table/use-paged-query';
import { displayName } from '../../lib/username';
import { formatLapTime } from '../race/race-format';

export function LeaderboardTable({
  queryKey,
  fetchPage,
  caption,
  testId,
}: {
  queryKey: readonly unknown[];
  fetchPage: (page: number, limit: number) => Promise<LeaderboardResponse>;
  caption: string;
  testId: string;
}) {
  const { t, i18n } = useTranslation();
  const paged = usePagedQuery(queryKey, fetchPage, {
    initialPageSize: LEADERBOARD_DEFAULT_PAGE_SIZE,
    refresh: false,
  });
  // Ranks run on across pages.
  const first = (paged.page - 1) * paged.pageSize;
  return (
    <PagedTable
      paged={paged}
      rowsOf={(page) => page.data}
      texts={{
        caption,
        pager: caption,
        loadFailed: t('leaderboards.loadFailed'),
        empty: t('leaderboards.empty'),
      }}
      columns={[
        { label: t('leaderboards.columns.rank'), numeric: true },
        { label: t('leaderboards.columns.driver') },
        { label: t('leaderboards.columns.bestLaps'), numeric: true, wide: true },
        { label: t('leaderboards.columns.bestLap'), numeric: true },
        { label: t('leaderboards.columns.races'), numeric: true, wide: true },
      ]}
      headTestId={testId}
    >
      {(row, index) => (
        <tr key={row.user_id} className="hover:bg-surface-2/50">
          <td className={`${numberCell} font-bold`}>{first + index + 1}</td>
          {/* The name takes the room left (w-full max-w-0), cut with an ellipsis, not the table wider. */}
          <th scope="row" className={`${bodyCell} w-full max-w-0 text-left font-semibold`}>
            <span className="flex items-center gap-2">
              <Avatar username={row.username} url={row.avatar_url} />
              <span className="min-w-0">
                <span className="block truncate" title={displayName(row.username)}>
                  {displayName(row.username)}
                </span>
                <span className={`${phoneOnly} block text-xs font-normal text-muted`}>
                  {t('leaderboards.phoneCell', {
                    label: t('leaderboards.columns.bestLaps'),
                    value: row.best_race_laps,
                  })}
                  {' · '}
                  {t('leaderboards.phoneCell', {
                    label: t('leaderboards.columns.races'),
                    value: row.total_races,
                  })}
                </span>
              </span>
            </span>
          </th>
          <td className={`${numberCell} ${wideOnly}`}>{row.best_race_laps}</td>
          <td className={numberCell}>{formatLapTime(row.best_race_lap_time, i18n.resolvedLanguage)}</td>
          <td className={`${numberCell} ${wideOnly}`}>{row.total_races}</td>
        </tr>
      )}
    </PagedTable>
  );
}
