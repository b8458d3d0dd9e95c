/**
 * The raffle page's word to its winners (issue 41 point 3): a "won? claim here" link to /claim and
 * the time left to claim, counting down each second to `claimUntil`, then "claims are closed".
 */
import { useTranslation } from 'react-i18next';
import { LinkButton } from '../../components/ui/LinkButton';
import { useNow } from '../../lib/use-now';
import { formatRaceClock } from '../race/race-format';

export function ClaimCountdown({ claimUntil }: { claimUntil: string }) {
  const { t, i18n } = useTranslation();
  const end = Date.parse(claimUntil);
  const now = useNow();
  const left = Math.max(0, end - now);
  const P = 'rafflePage.claim';
  const deadline = new Date(end).toLocaleTimeString(i18n.resolvedLanguage, {
    hour: '2-digit',
    minute: '2-digit',
  });
  if (left === 0)
    return (
      <p
        data-testid="raffle-claims-closed"
        className="rounded-xl border border-line bg-surface-2/40 px-4 py-3 text-sm"
      >
        <span className="font-semibold">{t(`${P}.closed`)}</span>{' '}
        <span className="text-muted">{t(`${P}.closedText`, { time: deadline })}</span>
      </p>
    );
  return (
    <div
      data-testid="raffle-claim"
      className="flex flex-wrap items-center justify-between gap-3 rounded-xl border border-accent/40 bg-accent/5 px-4 py-3"
    >
      <div className="min-w-0">
        <p className="font-semibold">{t(`${P}.title`)}</p>
        <p className="text-sm text-muted">
          {t(`${P}.timeLeft`)}{' '}
          <span
            role="timer"
            data-testid="raffle-claim-countdown"
            className="font-mono font-bold text-fg tabular-nums"
          >
            {formatRaceClock(left)}
          </span>{' '}
          {t(`${P}.until`, { time: deadline })}
        </p>
      </div>
      <LinkButton to="/claim" size="sm" data-testid="raffle-claim-link">
        {t(`${P}.link`)}
      </LinkButton>
    </div>
  );
}
