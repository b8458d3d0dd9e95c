/**
 * The race's pilots (spec §3 participants): name, car, ready state and, in Race Control, the ping
 * in the spec's colours and until when each one's car is theirs.
 */
import type { RaceParticipant } from '@telerace/protocol';
import { useTranslation } from 'react-i18next';
import { cx } from '../../lib/cx';
import { useTimeZoneOptions } from '../../lib/use-hydrated';
import { displayName } from '../../lib/username';
import { pingTone } from '../control/readouts';

const PING_COLOURS = { good: 'text-success', fair: 'text-warning', poor: 'text-danger' } as const;

export function PingValue({ ms }: { ms: number | null }) {
  const { t } = useTranslation();
  if (ms === null) return <span className="text-muted">{t('race.ping.unknown')}</span>;
  const tone = pingTone(ms);
  return (
    <span className={cx('font-mono tabular-nums', PING_COLOURS[tone])} data-tone={tone}>
      {t('race.ping.value', { ms: Math.round(ms) })}
      <span className="sr-only"> ({t(`control.ping.${tone}`)})</span>
    </span>
  );
}

export function ReadyBadge({ ready }: { ready: boolean }) {
  const { t } = useTranslation();
  return (
    <span
      className={cx(
        'rounded-md px-1.5 py-0.5 text-xs font-bold uppercase',
        ready ? 'bg-success/15 text-success' : 'bg-surface-2 text-muted',
      )}
    >
      {ready ? t('race.lobby.ready') : t('race.lobby.notReady')}
    </span>
  );
}

/**
 * Until when the participant's car is theirs (issue 23): a time in the lobby, the race's end
 * from the start on (`sessionEndsAt: null`); nothing when the server did not say.
 */
function CarUntil({ endsAt }: { endsAt: string | null | undefined }) {
  const { t, i18n } = useTranslation();
  const inTimeZone = useTimeZoneOptions();
  if (endsAt === undefined) return null;
  const end = endsAt === null ? null : new Date(endsAt);
  if (end && Number.isNaN(end.getTime())) return null;
  return (
    <span
      className="block text-xs font-normal text-muted"
      title={end?.toLocaleString(i18n.resolvedLanguage, inTimeZone)}
    >
      {end
        ? t('raceControl.carUntil', {
            time: end.toLocaleTimeString(i18n.resolvedLanguage, {
              hour: '2-digit',
              minute: '2-digit',
              ...inTimeZone,
            }),
          })
        : t('raceControl.carUntilRaceEnds')}
    </span>
  );
}

export function ParticipantsList({
  participants,
  userId,
  showCarUntil = false,
  showPing = true,
}: {
  participants: readonly RaceParticipant[];
  userId: number | null;
  /** Race Control: until when each participant's car is theirs. */
  showCarUntil?: boolean;
  /**
   * The ping each page reports over the event socket. Not on the control page, whose one ping
   * readout is the driver's control link (issue 41: two different pings showed at once).
   */
  showPing?: boolean;
}) {
  const { t } = useTranslation();
  if (participants.length === 0) return <p className="text-sm text-muted">{t('race.noParticipants')}</p>;
  return (
    <ul
      className="divide-y divide-line text-sm"
      aria-label={t('race.participants')}
      data-testid="race-participants"
    >
      {participants.map((p) => (
        <li
          key={p.userId}
          className={cx('flex items-center gap-2 py-1.5', p.userId === userId && 'font-semibold')}
        >
          <span className="min-w-0 flex-1">
            <span className="[overflow-wrap:anywhere]">{displayName(p.username)}</span>
            {p.userId === userId && (
              <span className="ml-1 text-xs whitespace-nowrap text-muted">({t('race.you')})</span>
            )}
            <span className="block truncate text-xs font-normal text-muted">{p.carName}</span>
            {showCarUntil && <CarUntil endsAt={p.sessionEndsAt} />}
          </span>
          <ReadyBadge ready={p.isReady} />
          {showPing && (
            <span className="w-16 text-right text-xs">
              <PingValue ms={p.ping} />
            </span>
          )}
        </li>
      ))}
    </ul>
  );
}
