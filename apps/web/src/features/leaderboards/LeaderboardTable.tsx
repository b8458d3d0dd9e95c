/**
 * A leaderboard (spec §3 leaderboard row): rank, avatar and name, best race's laps and best lap
 * (seconds, 2 decimals), races run; paged 10/25/50/100 (default 10), with loading, empty and
 * error states. Used for all time and for a season.
 */
import { LEADERBOARD_DEFAULT_PAGE_SIZE, type LeaderboardResponse } from '@telerace/protocol';
import { useTranslation } from 'react-i18next';
import { Avatar } from '../../components/layout/Avatar';
import { Alert } from '../../components/ui/Alert';
import { ScrollTable } from '../../components/ui/ScrollTable';
import { displayName } from '../../lib/username';
import { Pagination } from '../admin/Pagination';
import { TableEmpty, TableLoading } from '../admin/table-states';
import { bodyCell, headCell } from '../admin/table-styles';
import { usePagedQuery } from '../admin/use-paged-query';
import { formatLapTime } from '../race/race-format';

const number = `${bodyCell} text-right font-mono tabular-nums`;

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
  const { query, page, pageSize, setPage, setPageSize } = usePagedQuery(queryKey, fetchPage, {
    initialPageSize: LEADERBOARD_DEFAULT_PAGE_SIZE,
    refresh: false,
  });
  if (query.isPending) return <TableLoading />;
  if (query.isError && !query.data) return <Alert tone="error">{t('leaderboards.loadFailed')}</Alert>;
  const { data, totalCount } = query.data;
  const first = (page - 1) * pageSize;
  return (
    <div className="space-y-4">
      {query.isError && <Alert tone="warning">{t('leaderboards.loadFailed')}</Alert>}
      {data.length === 0 ? (
        <TableEmpty>{t('leaderboards.empty')}</TableEmpty>
      ) : (
        <ScrollTable label={caption}>
          <thead>
            <tr data-testid={testId}>
              <th scope="col" className={`${headCell} text-right`}>
                {t('leaderboards.columns.rank')}
              </th>
              <th scope="col" className={headCell}>
                {t('leaderboards.columns.driver')}
              </th>
              <th scope="col" className={`${headCell} text-right`}>
                {t('leaderboards.columns.bestLaps')}
              </th>
              <th scope="col" className={`${headCell} text-right`}>
                {t('leaderboards.columns.bestLap')}
              </th>
              <th scope="col" className={`${headCell} text-right`}>
                {t('leaderboards.columns.races')}
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-line">
            {data.map((row, index) => (
              <tr key={row.user_id} className="hover:bg-surface-2/50">
                <td className={`${number} font-bold`}>{first + index + 1}</td>
                <th scope="row" className={`${bodyCell} text-left font-semibold`}>
                  <span className="flex items-center gap-2">
                    <Avatar username={row.username} url={row.avatar_url} />
                    <span className="truncate">{displayName(row.username)}</span>
                  </span>
                </th>
                <td className={number}>{row.best_race_laps}</td>
                <td className={number}>{formatLapTime(row.best_race_lap_time, i18n.resolvedLanguage)}</td>
                <td className={number}>{row.total_races}</td>
              </tr>
            ))}
          </tbody>
        </ScrollTable>
      )}
      <Pagination
        name={caption}
        page={page}
        pageSize={pageSize}
        totalCount={totalCount}
        onPageChange={setPage}
        onPageSizeChange={setPageSize}
      />
    </div>
  );
}
