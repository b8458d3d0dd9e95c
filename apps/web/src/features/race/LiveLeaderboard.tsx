/**
 * The live leaderboard (spec §2, §3): position, name, best lap, laps (and the last lap); own row
 * highlighted. In a narrow box (the control page's side panel, under 24rem) the last lap gives
 * way, so the laps column the spec asks for stays in view without scrolling. Names are never cut
 * ("demo-dri…" tells a driver nothing): a long one wraps. `OverlayLeaderboard` is the same
 * standings over the video, as a list of two-line rows that fits a card a third of a phone wide.
 */
import type { LiveLeaderboardRow } from '@telerace/protocol';
import { useTranslation } from 'react-i18next';
import { cx } from '../../lib/cx';
import { displayName } from '../../lib/username';
import { formatLapTime } from './race-format';

const cell = 'px-2 py-1.5';

export function LiveLeaderboard({
  rows,
  userId,
  className,
}: {
  rows: readonly LiveLeaderboardRow[];
  userId: number | null;
  className?: string;
}) {
  const { t, i18n } = useTranslation();
  const language = i18n.resolvedLanguage;
  return (
    <div className={cx('@container overflow-x-auto', className)}>
      <table className="w-full border-collapse text-left text-sm" data-testid="live-leaderboard">
        <caption className="sr-only">{t('race.leaderboard.title')}</caption>
        <thead className="text-xs text-muted uppercase">
          <tr>
            <th scope="col" className={cell}>
              {t('race.leaderboard.pos')}
            </th>
            <th scope="col" className={cell}>
              {t('race.leaderboard.name')}
            </th>
            <th scope="col" className={cx(cell, 'text-right')}>
              {t('race.leaderboard.bestLap')}
            </th>
            <th scope="col" className={cx(cell, 'text-right @max-sm:hidden')}>
              {t('race.leaderboard.lastLap')}
            </th>
            <th scope="col" className={cx(cell, 'text-right')}>
              {t('race.leaderboard.laps')}
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-line">
          {rows.length === 0 ? (
            <tr>
              <td colSpan={5} className={cx(cell, 'text-center text-muted')}>
                {t('race.leaderboard.empty')}
              </td>
            </tr>
          ) : (
            rows.map((row) => {
              const mine = row.user_id === userId;
              return (
                <tr
                  key={`${row.user_id}-${row.car_id}`}
                  className={cx(mine && 'bg-accent/15 font-semibold')}
                  aria-current={mine || undefined}
                >
                  <td className={cx(cell, 'font-mono tabular-nums')}>{row.pos}</td>
                  <th scope="row" className={cx(cell, 'font-semibold')}>
                    <span className="[overflow-wrap:anywhere]">{displayName(row.name)}</span>
                    {mine && (
                      <span className="ml-1 text-xs font-normal whitespace-nowrap text-muted">
                        ({t('race.you')})
                      </span>
                    )}
                  </th>
                  <td className={cx(cell, 'text-right font-mono tabular-nums')}>
                    {formatLapTime(row.best_lap, language)}
                  </td>
                  <td className={cx(cell, 'text-right font-mono tabular-nums @max-sm:hidden')}>
                    {formatLapTime(row.last_lap, language)}
                  </td>
                  <td className={cx(cell, 'text-right font-mono tabular-nums')}>{row.laps}</td>
                </tr>
              );
            })
          )}
        </tbody>
      </table>
    </div>
  );
}

/** The live leaderboard over the video: per driver, position and name, then best lap and laps. */
export function OverlayLeaderboard({
  rows,
  userId,
}: {
  rows: readonly LiveLeaderboardRow[];
  userId: number | null;
}) {
  const { t, i18n } = useTranslation();
  const language = i18n.resolvedLanguage;
  if (rows.length === 0) return <p className="text-white/75">{t('race.leaderboard.empty')}</p>;
  return (
    <ol
      className="space-y-1 border-t border-white/15 pt-1.5"
      aria-label={t('race.leaderboard.title')}
      data-testid="race-overlay-leaderboard"
    >
      {rows.map((row) => {
        const mine = row.user_id === userId;
        return (
          <li
            key={`${row.user_id}-${row.car_id}`}
            className={cx('grid grid-cols-[1.5ch_1fr] gap-x-2 rounded px-1', mine && 'bg-white/15')}
            aria-current={mine || undefined}
            data-driver={displayName(row.name)}
            data-laps={row.laps}
          >
            <span className="font-mono font-black tabular-nums">
              <span className="sr-only">{t('race.leaderboard.pos')} </span>
              {row.pos}
            </span>
            <span className="font-semibold">
              <span className="[overflow-wrap:anywhere]">{displayName(row.name)}</span>
              {mine && (
                <span className="ml-1 font-normal whitespace-nowrap text-white/75">({t('race.you')})</span>
              )}
            </span>
            <span className="col-start-2 font-mono text-[0.7rem] text-white/80 tabular-nums sm:text-xs">
              {t('race.overlay.bestLap', { time: formatLapTime(row.best_lap, language) })} ·{' '}
              {t('race.overlay.laps', { count: row.laps })}
            </span>
          </li>
        );
      })}
    </ol>
  );
}
