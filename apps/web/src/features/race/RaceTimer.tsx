/** The race clock (spec §2 "race timer mm:ss"): time left until `race_expires_at`, ticking each second. */
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { cx } from '../../lib/cx';
import { useFirstNow } from '../../lib/use-now';
import { formatRaceClock } from './race-format';

export function RaceTimer({
  expiresAt,
  className,
  onDark = false,
}: {
  expiresAt: string;
  className?: string;
  /** Over the video: the last 30 s in a red that reads on the dark card in either theme. */
  onDark?: boolean;
}) {
  const { t } = useTranslation();
  const [now, setNow] = useState(useFirstNow());
  useEffect(() => {
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const end = Date.parse(expiresAt);
  if (Number.isNaN(end)) return null;
  const left = end - now;
  return (
    <span
      role="timer"
      aria-label={t('race.timer.label')}
      data-testid="race-timer"
      className={cx(
        'font-mono font-black tabular-nums',
        left <= 30_000 && (onDark ? 'text-[#fca5a5]' : 'text-danger'),
        className,
      )}
    >
      {formatRaceClock(left)}
    </span>
  );
}
