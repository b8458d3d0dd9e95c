/**
 * A finished race's page (`/races/:id`, public; issue 12): its participants by position with
 * their laps and best lap, and the lap-time chart per driver. An unknown race shows a 404 state.
 */
import { useTranslation } from 'react-i18next';
import { Avatar } from '../components/layout/Avatar';
import { RecordBackLink, RecordNotFound, useRecord, useRecordId } from '../components/record-page';
import { TableLoading } from '../components/table/table-states';
import { bodyCell, headCell, phoneOnly, wideOnly } from '../components/table/table-styles';
import { Alert } from '../components/ui/Alert';
import { Panel } from '../components/ui/Panel';
import { ScrollTable } from '../components/ui/ScrollTable';
import { LapChart } from '../features/leaderboards/LapChart';
import { fetchRace, raceKey } from '../features/leaderboards/leaderboards-api';
import { formatLapTime } from '../features/race/race-format';
import { formatRelativeTime } from '../lib/relative-time';
import { useTimeZoneOptions } from '../lib/use-hydrated';
import { useFirstNow } from '../lib/use-now';
import { displayName } from '../lib/username';

const number = `${bodyCell} text-right font-mono tabular-nums`;

export default function Race() {
  const { t, i18n } = useTranslation();
  const raceId = useRecordId();
  const { query, notFound } = useRecord(raceId, raceKey, fetchRace);
  const inTimeZone = useTimeZoneOptions();
  const firstNow = useFirstNow();
  if (notFound) return <RecordNotFound i18nPrefix="racePage" testId="race-not-found" />;
  const race = query.data;
  const language = i18n.resolvedLanguage;
  const participants = race
    ? [...race.participants].sort((a, b) => (a.position ?? 1e9) - (b.position ?? 1e9))
    : [];
  return (
    <div className="mx-auto max-w-5xl space-y-4">
      <RecordBackLink i18nPrefix="racePage" />
      <Panel
        level={1}
        eyebrow={t('racePage.eyebrow')}
        title={t('racePage.title', { id: raceId })}
        actions={
          race?.finished_at ? (
            <span
              className="text-sm text-muted"
              title={new Date(race.finished_at).toLocaleString(language, inTimeZone)}
            >
              {t('racePage.finishedAt', {
                time: formatRelativeTime(t, race.finished_at, new Date(firstNow)),
              })}
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
                  <th scope="col" className={`${headCell} ${wideOnly}`}>
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
                    {/* On a phone the car goes under the name, and a long name ends in an ellipsis
                        rather than push the laps out of sight (issue 41). */}
                    <th scope="row" className={`${bodyCell} w-full max-w-0 text-left font-semibold`}>
                      <span className="flex items-center gap-2">
                        <Avatar username={p.username} url={p.avatar_url} />
                        <span className="min-w-0">
                          <span className="block truncate" title={displayName(p.username)}>
                            {displayName(p.username)}
                          </span>
                          <span className={`${phoneOnly} block truncate text-xs font-normal text-muted`}>
                            {p.car_name}
                          </span>
                        </span>
                      </span>
                    </th>
                    <td className={`${bodyCell} ${wideOnly}`}>{p.car_name}</td>
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
