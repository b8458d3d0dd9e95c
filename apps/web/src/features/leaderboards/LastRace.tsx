/**
 * "Your last race" at the top of the home page (issue 41, last-race.ts): after a race its drivers
 * are sent home, where their result waits — position, laps, best lap, the podium and a link to the
 * race's page. Folded away, it stays a one-line reminder while the race is recent. Fetched with
 * its own code (the home page is in the first download; a signed-out visitor never needs it).
 */
import { useQuery } from '@tanstack/react-query';
import type { LastRace as LastRaceData } from '@telerace/protocol';
import type { TFunction } from 'i18next';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'react-router';
import { Avatar } from '../../components/layout/Avatar';
import { iconButtonClasses } from '../../components/ui/button-styles';
import { Card } from '../../components/ui/Card';
import { LineIcon } from '../../components/ui/Icon';
import { LinkButton } from '../../components/ui/LinkButton';
import { Panel } from '../../components/ui/Panel';
import { cx } from '../../lib/cx';
import { formatRelativeTime } from '../../lib/relative-time';
import { displayName } from '../../lib/username';
import { useAuth } from '../auth/auth-context';
import { formatLapTime } from '../race/race-format';
import { foldedRace, foldRace, isRecent } from './last-race';
import { fetchLastRace, lastRaceKey } from './leaderboards-api';

const K = 'pages.home.lastRace';

/** The signed-in member's last race while it is recent; nothing for anyone else. */
export default function LastRace() {
  const { user } = useAuth();
  return user ? <MemberLastRace userId={user.id} /> : null;
}

function MemberLastRace({ userId }: { userId: number }) {
  // Asked again each time the home page is opened (a race may have ended since: its drivers are
  // sent here), also when it already shows: a new visit is a new location.
  const query = useQuery({ queryKey: lastRaceKey(userId), queryFn: fetchLastRace });
  const visit = useLocation().key;
  const firstVisit = useRef(visit);
  const { refetch } = query;
  useEffect(() => {
    if (visit !== firstVisit.current) void refetch();
  }, [visit, refetch]);
  const [folded, setFolded] = useState(() => foldedRace(userId));
  const [justFolded, setJustFolded] = useState(false);
  const race = query.data?.race;
  if (!race || !isRecent(race, Date.now())) return null;
  if (folded === race.race_id) return <LastRaceReminder race={race} takeFocus={justFolded} />;
  return (
    <LastRaceResult
      race={race}
      userId={userId}
      onFold={() => {
        foldRace(userId, race.race_id);
        setFolded(race.race_id);
        setJustFolded(true);
      }}
    />
  );
}

function useRaceTexts(race: LastRaceData) {
  const { t, i18n } = useTranslation();
  const language = i18n.resolvedLanguage;
  const ended = formatRelativeTime(t, race.finished_at, new Date());
  const seconds = (ms: number | null) =>
    ms === null ? null : t(`${K}.seconds`, { time: formatLapTime(ms, language) });
  const placed =
    race.position === null ? null : t(`${K}.positionOf`, { position: race.position, drivers: race.drivers });
  return { t, ended, seconds, placed };
}

function headline(t: TFunction, race: LastRaceData): string {
  if (race.position === null) return t(`${K}.unplaced`);
  if (race.drivers === 1) return t(`${K}.solo`);
  if (race.position === 1) return t(`${K}.won`);
  return t(`${K}.placed`, { position: race.position, drivers: race.drivers });
}

/** The full result, right after the race. */
function LastRaceResult({
  race,
  userId,
  onFold,
}: {
  race: LastRaceData;
  userId: number;
  onFold: () => void;
}) {
  const { t, ended, seconds } = useRaceTexts(race);
  const best = seconds(race.best_lap_time_ms);
  const note =
    race.end_reason === 'ended_by_admin'
      ? t(`${K}.endedEarly`)
      : race.end_reason === 'recovered'
        ? t(`${K}.recovered`)
        : null;
  // A label on two lines (French) keeps the values on one level.
  const stat =
    'flex min-w-0 flex-col justify-between rounded-xl border border-line bg-surface-2 px-2.5 py-2 sm:px-3';
  const statTerm =
    'text-[0.6875rem] leading-tight font-bold tracking-wide break-words text-muted uppercase sm:text-xs';
  const statValue = 'mt-1 font-display text-xl font-black whitespace-nowrap tabular-nums italic sm:text-2xl';
  return (
    // The fold button sits in the panel's corner, beside the title however long it is.
    <div className="relative" data-testid="last-race" data-race-id={race.race_id}>
      <Panel eyebrow={t(`${K}.eyebrow`)} title={<span className="block pr-9">{headline(t, race)}</span>}>
        <p className="text-sm text-muted">{t(`${K}.meta`, { id: race.race_id, time: ended })}</p>
        {note && (
          <p className="mt-2 text-sm font-semibold" data-testid="last-race-note">
            {note}
          </p>
        )}
        <div className="mt-4 grid grid-cols-1 gap-5 lg:grid-cols-2 lg:gap-8">
          <div className="min-w-0">
            <dl className="grid grid-cols-3 gap-2 sm:gap-3">
              <div className={stat}>
                <dt className={statTerm}>{t(`${K}.position`)}</dt>
                <dd className={statValue} data-testid="last-race-position">
                  {race.position ?? '—'}
                  <span className="text-base text-muted"> / {race.drivers}</span>
                </dd>
              </div>
              <div className={stat}>
                <dt className={statTerm}>{t(`${K}.laps`)}</dt>
                <dd className={statValue} data-testid="last-race-laps">
                  {race.total_laps}
                </dd>
              </div>
              <div className={stat}>
                <dt className={statTerm}>{t(`${K}.bestLap`)}</dt>
                <dd
                  className={best ? statValue : 'mt-1 text-sm font-semibold leading-tight'}
                  data-testid="last-race-best-lap"
                >
                  {best ?? t(`${K}.noLap`)}
                </dd>
              </div>
            </dl>
            {best === null && <p className="mt-2 text-sm text-muted">{t(`${K}.noLapHint`)}</p>}
          </div>
          <section
            aria-labelledby={`last-race-podium-${race.race_id}`}
            className="min-w-0 lg:col-start-2 lg:row-span-2 lg:row-start-1"
          >
            <h3 id={`last-race-podium-${race.race_id}`} className="font-bold">
              {t(`${K}.podium`)}
            </h3>
            <ol className="mt-2 space-y-2" data-testid="last-race-podium">
              {race.podium.map((place) => {
                const mine = place.user_id === userId;
                const placeBest = seconds(place.best_lap_time_ms);
                return (
                  <li
                    key={place.user_id}
                    data-position={place.position}
                    className={cx(
                      'flex items-center gap-3 rounded-xl border px-3 py-2',
                      mine ? 'border-accent bg-accent/10' : 'border-line',
                    )}
                  >
                    <span
                      className={cx(
                        'grid size-8 shrink-0 place-items-center rounded-full font-display font-black italic',
                        place.position === 1 ? 'bg-accent text-accent-fg' : 'border border-line bg-surface-2',
                      )}
                    >
                      <span className="sr-only">{t(`${K}.position`)} </span>
                      {place.position}
                    </span>
                    <Avatar username={place.username} url={place.avatar_url} />
                    <span className="flex min-w-0 flex-1 items-baseline gap-1">
                      <span className="truncate font-semibold">{displayName(place.username)}</span>
                      {mine && <span className="shrink-0 text-sm text-muted"> ({t(`${K}.you`)})</span>}
                    </span>
                    <span className="shrink-0 text-right text-sm text-muted tabular-nums">
                      {t(`${K}.lapCount`, { count: place.total_laps })}
                      {placeBest && (
                        <>
                          <br className="sm:hidden" />
                          <span className="hidden sm:inline"> · </span>
                          {placeBest}
                        </>
                      )}
                    </span>
                  </li>
                );
              })}
            </ol>
          </section>
          {/* Under the podium on a phone, under the figures beside it on a wide screen. */}
          <div className="flex flex-wrap gap-3 lg:col-start-1">
            <LinkButton to={`/races/${race.race_id}`}>{t(`${K}.seeRace`)}</LinkButton>
          </div>
        </div>
      </Panel>
      <button
        type="button"
        className={cx(iconButtonClasses, 'absolute top-4 right-3 sm:right-4')}
        aria-label={t(`${K}.fold`)}
        onClick={onFold}
      >
        <LineIcon>
          <path strokeLinecap="round" d="M6 6l12 12M18 6 6 18" />
        </LineIcon>
      </button>
    </div>
  );
}

/** The result folded away: one line and the link, while the race is recent. */
function LastRaceReminder({ race, takeFocus = false }: { race: LastRaceData; takeFocus?: boolean }) {
  const { t, ended, placed } = useRaceTexts(race);
  const box = useRef<HTMLDivElement>(null);
  // The fold button is gone: the focus goes to the link that took its place.
  useEffect(() => {
    if (takeFocus) box.current?.querySelector('a')?.focus();
  }, [takeFocus]);
  const parts = [placed, t(`${K}.lapCount`, { count: race.total_laps }), t(`${K}.ended`, { time: ended })];
  return (
    <div ref={box} data-testid="last-race-reminder" data-race-id={race.race_id}>
      <Card className="flex flex-wrap items-center gap-x-4 gap-y-2 px-4 py-3">
        <p className="min-w-0 flex-1 text-sm">
          <span className="font-bold">{t(`${K}.eyebrow`)}</span>
          <span className="text-muted"> · {parts.filter(Boolean).join(' · ')}</span>
        </p>
        <LinkButton to={`/races/${race.race_id}`} variant="secondary" size="sm">
          {t(`${K}.seeRace`)}
        </LinkButton>
      </Card>
    </div>
  );
}
