/**
 * A finished race's page (`/races/:id`, public; issue 12): its participants by position with
 * their laps and best lap, and the lap-time chart per driver. An unknown race shows a 404 state.
 */
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { Avatar } from '../components/layout/Avatar';
import { TableLoading } from '../components/table/table-states';
import { bodyCell, headCell } from '../components/table/table-styles';
import { Alert } from '../components/ui/Alert';
import { LinkButton } from '../components/ui/LinkButton';
import { Panel } from '../components/ui/Panel';
import { ScrollTable } from '../components/ui/ScrollTable';
import { LapChart } from '../features/leaderboards/LapChart';
import { fetchRace, raceKey } from '../features/leaderboards/leaderboards-api';
import { formatLapTime } from '../features/race/race-format';
import { ApiError } from '../lib/api';
import { formatRelativeTime } from '../lib/relative-time';
import { displayName } from '../lib/username';

const number = `${bodyCell} text-right font-mono tabular-nums`;

function BackLink() {
  const { t } = useTranslation();
  return (
    <LinkButton to="/leaderboards" variant="secondary" size="sm">
      <span aria-hidden="true">←</span> {t('racePage.back')}
    </LinkButton>
  );
}

export default function Race() {
  const { t, i18n } = useTranslation();
  const { id = '' } = useParams();
  const raceId = /^\d+$/.test(id) ? Number(id) : null;
  const query = useQuery({
    queryKey: raceKey(raceId ?? 0),
    queryFn: () => fetchRace(raceId ?? 0),
    enabled: raceId !== null,
    // A race that does not exist will not appear by asking again.
    retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 1,
  });
  const notFound = raceId === null || (query.error instanceof ApiError && query.error.status === 404);

  if (notFound) {
    return (
      <div className="mx-auto max-w-xl">
        <Panel level={1} eyebrow={t('racePage.eyebrow')} title={t('racePage.notFoundTitle')}>
          <p className="text-muted" data-testid="race-not-found">
            {t('racePage.notFound')}
          </p>
          <div className="mt-5">
            <BackLink />
          </div>
        </Panel>
      </div>
    );
  }
  const race = query.data;
  const language = i18n.resolvedLanguage;
  const participants = race
    ? [...race.participants].sort((a, b) => (a.position ?? 1e9) - (b.position ?? 1e9))
    : [];
  return (
    <div className="mx-auto max-w-5xl space-y-4">
      <BackLink />
      <Panel
        level={1}
        eyebrow={t('racePage.eyebrow')}
        title={t('racePage.title', { id: raceId })}
        actions={
          race?.finished_at ? (
            <span className="text-sm text-muted" title={new Date(race.finished_at).toLocaleString(language)}>
              {t('racePage.finishedAt', { time: formatRelativeTime(t, race.finished_at, new Date()) })}
            </span>
          ) : undefined
        }
      >
        {query.isPending ? (
          <TableLoading />
        ) : !race ? (
          <Alert tone="error">{t('racePage.loadFailed')}</Alert>
        ) : (
          <div className="space-y-6">
            <ScrollTable label={t('racePage.participantsCaption')}>
              <thead>
                <tr data-testid="race-participants-head">
                  <th scope="col" className={`${headCell} text-right`}>
                    {t('racePage.columns.position')}
                  </th>
                  <th scope="col" className={headCell}>
                    {t('racePage.columns.driver')}
                  </th>
                  <th scope="col" className={headCell}>
                    {t('racePage.columns.car')}
                  </th>
                  <th scope="col" className={`${headCell} text-right`}>
                    {t('racePage.columns.laps')}
                  </th>
                  <th scope="col" className={`${headCell} text-right`}>
                    {t('racePage.columns.bestLap')}
                  </th>
                </tr>
              </thead>
              <tbody className="divide-y divide-line">
                {participants.map((p) => (
                  <tr key={`${p.user_id}-${p.car_id}`}>
                    <td className={`${number} font-bold`}>{p.position ?? '—'}</td>
                    <th scope="row" className={`${bodyCell} text-left font-semibold`}>
                      <span className="flex items-center gap-2">
                        <Avatar username={p.username} url={p.avatar_url} />
                        {displayName(p.username)}
                      </span>
                    </th>
                    <td className={bodyCell}>{p.car_name}</td>
                    <td className={number}>{p.total_laps}</td>
                    <td className={number}>{formatLapTime(p.best_lap_time_ms, language)}</td>
                  </tr>
                ))}
              </tbody>
            </ScrollTable>
            <section aria-labelledby="race-chart-title">
              <h2 id="race-chart-title" className="mb-2 font-display text-xl font-black italic">
                {t('racePage.chart.title')}
              </h2>
              <LapChart participants={participants} />
            </section>
          </div>
        )}
      </Panel>
    </div>
  );
}
