/**
 * The claim time of a drawn raffle, told to its winners (issue 41 points 2 and 3): on the raffle
 * page a "won? claim here" link to /claim with the time left, on /claim the deadline itself. Both
 * count down each second to the summary's `claimUntil`, then say claims are closed.
 */
import { useTranslation } from 'react-i18next';
import { LinkButton } from '../../components/ui/LinkButton';
import { useTimeZoneOptions } from '../../lib/use-hydrated';
import { useNow } from '../../lib/use-now';
import { formatRaceClock } from '../race/race-format';

const P = 'rafflePage.claim';

/** The time left (ms, never negative) and the deadline as a clock time in the page's language. */
function useClaimClock(claimUntil: string) {
  const { i18n } = useTranslation();
  const end = Date.parse(claimUntil);
  // The clock stops once the claim time is over: nothing left to count.
  const left = Math.max(0, end - useNow(Date.now() < end));
  const deadline = new Date(end).toLocaleTimeString(i18n.resolvedLanguage, {
    hour: '2-digit',
    minute: '2-digit',
    ...useTimeZoneOptions(),
  });
  return { left, deadline };
}

function TimeLeft({ left, testId }: { left: number; testId: string }) {
  return (
    <span role="timer" data-testid={testId} className="font-mono font-bold text-fg tabular-nums">
      {formatRaceClock(left)}
    </span>
  );
}

/** The raffle page's box: the claim link and the time left, or "claims are closed". */
export function ClaimCountdown({ claimUntil }: { claimUntil: string }) {
  const { t } = useTranslation();
  const { left, deadline } = useClaimClock(claimUntil);
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
          {t(`${P}.timeLeft`)} <TimeLeft left={left} testId="raffle-claim-countdown" />{' '}
          {t(`${P}.until`, { time: deadline })}
        </p>
      </div>
      <LinkButton to="/claim" size="sm" data-testid="raffle-claim-link">
        {t(`${P}.link`)}
      </LinkButton>
    </div>
  );
}

/** /claim's line about the last raffle: its winners' deadline and the time left, or that it passed. */
export function ClaimDeadline({ raffleId, claimUntil }: { raffleId: number; claimUntil: string }) {
  const { t } = useTranslation();
  const { left, deadline } = useClaimClock(claimUntil);
  return (
    <p data-testid="claim-deadline" className="mt-4 text-sm">
      {left === 0 ? (
        t('claim.deadlinePassed', { id: raffleId, time: deadline })
      ) : (
        <>
          {t('claim.deadline', { id: raffleId, time: deadline })}{' '}
          <TimeLeft left={left} testId="claim-time-left" />
        </>
      )}
    </p>
  );
}
