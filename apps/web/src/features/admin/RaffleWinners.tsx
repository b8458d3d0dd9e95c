/**
 * The winners of Race Control's raffle (issue 13): each prize in draw order with its winner and
 * claim state — pending until its expiry time, claimed, expired, or cleared by an admin.
 */
import type { AdminRaffleResponse } from '@telerace/protocol';
import { useTranslation } from 'react-i18next';
import { cx } from '../../lib/cx';

type Prize = AdminRaffleResponse['prizes'][number];

const STATE_TONES: Record<Prize['state'], string> = {
  pending: 'bg-warning/15 text-warning',
  claimed: 'bg-success/15 text-success',
  expired: 'bg-surface-2 text-muted',
  cleared: 'bg-surface-2 text-muted',
};

export function RaffleWinners({ prizes }: { prizes: Prize[] }) {
  const { t, i18n } = useTranslation();
  const T = 'raceControl.raffle';
  const clock = (iso: string) =>
    new Date(iso).toLocaleTimeString(i18n.resolvedLanguage, { hour: '2-digit', minute: '2-digit' });
  const sorted = [...prizes].sort((a, b) => a.rank - b.rank);
  return (
    <section aria-labelledby="admin-raffle-winners">
      <h4 id="admin-raffle-winners" className="mb-2 font-semibold">
        {t(`${T}.winners`)}
      </h4>
      {sorted.length === 0 ? (
        <p className="text-sm text-muted">{t(`${T}.noWinners`)}</p>
      ) : (
        <ol
          data-testid="raffle-winners"
          aria-labelledby="admin-raffle-winners"
          className="divide-y divide-line rounded-lg border border-line text-sm"
        >
          {sorted.map((prize) => (
            <li
              key={prize.id}
              data-state={prize.state}
              className="flex flex-wrap items-center justify-between gap-2 px-3 py-1.5"
            >
              <span className="min-w-0">
                <span className="mr-2 font-mono text-muted">{prize.rank}.</span>
                <span className="font-medium">{prize.displayName}</span>
                <span className="ml-2 text-xs text-muted">{t(`social.${prize.platform}`)}</span>
              </span>
              <span className="flex items-center gap-2 text-xs">
                <span
                  className={cx('rounded-full px-2 py-0.5 font-bold uppercase', STATE_TONES[prize.state])}
                >
                  {t(`${T}.prizeStates.${prize.state}`)}
                </span>
                {(prize.state === 'pending' || prize.state === 'expired') && (
                  <time dateTime={prize.expiresAt} className="text-muted">
                    {t(prize.state === 'pending' ? `${T}.expires` : `${T}.expired`, {
                      time: clock(prize.expiresAt),
                    })}
                  </time>
                )}
              </span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
