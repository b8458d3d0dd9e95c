/** The member's own races (spec §3 personal race history row), newest first; each opens its race page. */
import { LEADERBOARD_DEFAULT_PAGE_SIZE } from '@telerace/protocol';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { Alert } from '../../components/ui/Alert';
import { ScrollTable } from '../../components/ui/ScrollTable';
import { formatRelativeTime } from '../../lib/relative-time';
import { Pagination } from '../admin/Pagination';
import { TableEmpty, TableLoading } from '../admin/table-states';
import { bodyCell, headCell } from '../admin/table-styles';
import { usePagedQuery } from '../admin/use-paged-query';
import { formatLapTime } from '../race/race-format';
import { fetchRaceHistory, RACE_HISTORY_KEY } from './leaderboards-api';

const number = `${bodyCell} text-right font-mono tabular-nums`;

export function RaceHistoryTable() {
  const { t, i18n } = useTranslation();
  const { query, page, pageSize, setPage, setPageSize } = usePagedQuery(RACE_HISTORY_KEY, fetchRaceHistory, {
    initialPageSize: LEADERBOARD_DEFAULT_PAGE_SIZE,
    refresh: false,
  });
  if (query.isPending) return <TableLoading />;
  if (query.isError && !query.data) return <Alert tone="error">{t('leaderboards.historyFailed')}</Alert>;
  const { data, totalCount } = query.data;
  const now = new Date();
  const caption = t('leaderboards.historyCaption');
  return (
    <div className="space-y-4">
      {query.isError && <Alert tone="warning">{t('leaderboards.historyFailed')}</Alert>}
      {data.length === 0 ? (
        <TableEmpty>{t('leaderboards.historyEmpty')}</TableEmpty>
      ) : (
        <ScrollTable label={caption}>
          <thead>
            <tr data-testid="race-history-head">
              <th scope="col" className={headCell}>
                {t('leaderboards.columns.race')}
              </th>
              <th scope="col" className={headCell}>
                {t('leaderboards.columns.finished')}
              </th>
              <th scope="col" className={`${headCell} text-right`}>
                {t('leaderboards.columns.laps')}
              </th>
              <th scope="col" className={`${headCell} text-right`}>
                {t('leaderboards.columns.bestLap')}
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-line">
            {data.map((row) => (
              <tr key={row.race_id} className="hover:bg-surface-2/50">
                <th scope="row" className={`${bodyCell} text-left`}>
                  <Link
                    to={`/races/${row.race_id}`}
                    className="font-semibold text-accent underline-offset-2 hover:underline"
                  >
                    {t('leaderboards.openRace', { id: row.race_id })}
                  </Link>
                </th>
                <td
                  className={`${bodyCell} whitespace-nowrap`}
                  title={new Date(row.race_finished_at).toLocaleString(i18n.resolvedLanguage)}
                >
                  {formatRelativeTime(t, row.race_finished_at, now)}
                </td>
                <td className={number}>{row.total_laps}</td>
                <td className={number}>{formatLapTime(row.best_lap_time_ms, i18n.resolvedLanguage)}</td>
              </tr>
            ))}
          </tbody>
        </ScrollTable>
      )}
      <Pagination
        name={t('leaderboards.historyPagerName')}
        page={page}
        pageSize={pageSize}
        totalCount={totalCount}
        onPageChange={setPage}
        onPageSizeChange={setPageSize}
      />
    </div>
  );
}
