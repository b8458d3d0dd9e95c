/**
 * The raffle page's check of a drawn raffle, in the viewer's browser (issue 41 point 3): the
 * record (every entry) read and checked with the shared procedure and Web Crypto, the same checks
 * as `npm run verify-raffle` (docs/raffle-fairness.md), each shown with a pass or fail mark and a
 * summary. Web Crypto exists only on https (and localhost): elsewhere the page says so and the
 * command remains.
 */
import { useQuery } from '@tanstack/react-query';
import { type RaffleCheck, verifyRaffleRecord } from '@telerace/protocol';
import { useTranslation } from 'react-i18next';
import { TableLoading } from '../../components/table/table-states';
import { Alert } from '../../components/ui/Alert';
import { cx } from '../../lib/cx';
import { fetchRaffleRecord, raffleCheckKey } from './raffles-api';

const webCryptoAvailable = () => typeof globalThis.crypto?.subtle?.digest === 'function';

function CheckRow({ check, entryCount }: { check: RaffleCheck; entryCount: number }) {
  const { t } = useTranslation();
  const P = 'rafflePage.check';
  return (
    <li
      data-testid="raffle-check"
      data-check={check.name}
      data-ok={check.ok}
      className="flex gap-3 px-3 py-2"
    >
      <span
        aria-hidden="true"
        className={cx(
          'mt-0.5 grid size-6 shrink-0 place-items-center rounded-full text-sm font-black',
          check.ok ? 'bg-success/15 text-success' : 'bg-danger/15 text-danger',
        )}
      >
        {check.ok ? '✓' : '✗'}
      </span>
      <div className="min-w-0">
        <p className="font-semibold">
          <span className="sr-only">{t(check.ok ? `${P}.passed` : `${P}.failed`)}: </span>
          {t(`${P}.names.${check.name}`, { count: entryCount })}
        </p>
        {check.ok ? (
          // The count is in the check's own words already; the other checks show what was computed.
          check.name !== 'format' && (
            <p className="font-mono text-xs text-muted wrap-anywhere">{check.computed}</p>
          )
        ) : (
          <dl className="mt-1 grid gap-x-2 text-xs sm:grid-cols-[auto_1fr]">
            <dt className="text-muted">{t(`${P}.published`)}</dt>
            <dd className="font-mono wrap-anywhere">{check.published || '—'}</dd>
            <dt className="text-muted">{t(`${P}.computed`)}</dt>
            <dd className="font-mono wrap-anywhere">{check.computed || '—'}</dd>
          </dl>
        )}
      </div>
    </li>
  );
}

export function RaffleVerification({ raffleId, entryCount }: { raffleId: number; entryCount: number }) {
  const { t } = useTranslation();
  const P = 'rafflePage.check';
  const available = webCryptoAvailable();
  // A drawn raffle never changes: checked once per page.
  const query = useQuery({
    queryKey: raffleCheckKey(raffleId),
    queryFn: async () => verifyRaffleRecord(await fetchRaffleRecord(raffleId)),
    enabled: available,
    staleTime: Number.POSITIVE_INFINITY,
  });
  if (!available) return <Alert tone="info">{t(`${P}.unavailable`)}</Alert>;
  if (query.isPending) return <TableLoading />;
  if (!query.data) return <Alert tone="warning">{t(`${P}.loadFailed`)}</Alert>;
  const { ok, checks } = query.data;
  const failed = checks.filter((check) => !check.ok).length;
  return (
    <div className="space-y-3" data-testid="raffle-verification" data-ok={ok}>
      <Alert
        tone={ok ? 'success' : 'error'}
        title={t(ok ? `${P}.allPassed` : `${P}.someFailed`, { count: failed })}
      >
        {t(ok ? `${P}.allPassedText` : `${P}.someFailedText`)}
      </Alert>
      <ul className="divide-y divide-line rounded-lg border border-line text-sm">
        {checks.map((check) => (
          <CheckRow key={check.name} check={check} entryCount={entryCount} />
        ))}
      </ul>
    </div>
  );
}
