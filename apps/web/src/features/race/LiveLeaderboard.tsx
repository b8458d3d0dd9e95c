/**
 * The live leaderboard (spec §2, §3): position, name, best lap, laps (and the last lap); own row
 * highlighted. In a narrow box (the control page's side panel, under 24rem) the last lap gives
 * way and names shorten, so the laps column the spec asks for stays in view without scrolling.
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
                  <th scope="row" className={cx(cell, 'max-w-40 truncate font-semibold @max-sm:max-w-24')}>
                    {displayName(row.name)}
                    {mine && <span className="ml-1 text-xs font-normal text-muted">({t('race.you')})</span>}
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
