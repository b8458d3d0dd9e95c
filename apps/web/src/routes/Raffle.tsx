/**
 * A raffle's public page (`/raffles/:id`; issue 13): its status, the commitment published when it
 * opened, the entries with their weights (paged, and the whole list to download; issue 23), the
 * winners and, once drawn, the revealed seed and the entries hash. Once drawn, the draw is checked
 * right here in the browser (issue 41 point 3; the command that does the same stays as an aside),
 * and winners find the way to /claim with the time left (docs/raffle-fairness.md). An open raffle
 * is read again every 5 s, so entries and the draw show as they happen.
 */
import { TIMERS_MS } from '@telerace/protocol';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { HistoryBackLink, RecordNotFound, useRecord, useRecordId } from '../components/record-page';
import { TableLoading } from '../components/table/table-states';
import { Alert } from '../components/ui/Alert';
import { Panel } from '../components/ui/Panel';
import { ClaimCountdown } from '../features/raffles/ClaimTime';
import { RaffleAudit } from '../features/raffles/RaffleAudit';
import { RaffleEntriesTable } from '../features/raffles/RaffleEntriesTable';
import { RaffleVerification } from '../features/raffles/RaffleVerification';
import { fetchRaffle, raffleKey, raffleRecordUrl } from '../features/raffles/raffles-api';
import { VerifyCommand } from '../features/raffles/VerifyCommand';
import { useHydrated, useTimeZoneOptions } from '../lib/use-hydrated';

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="rounded-xl border border-line bg-surface-2/40 px-3 py-2">
      <dt className="text-xs font-semibold text-muted uppercase">{label}</dt>
      <dd className="mt-0.5 font-bold">{children}</dd>
    </div>
  );
}

export default function Raffle() {
  const { t, i18n } = useTranslation();
  const raffleId = useRecordId();
  const { query, notFound } = useRecord(raffleId, raffleKey, fetchRaffle, (data) =>
    data?.status === 'open' ? TIMERS_MS.adminRefresh : false,
  );
  const inTimeZone = useTimeZoneOptions();
  // The record's full address names this site as the browser reached it: known once live.
  const live = useHydrated();
  if (notFound) return <RecordNotFound i18nPrefix="rafflePage" testId="raffle-not-found" />;
  const raffle = query.data;
  const when = (iso: string) => new Date(iso).toLocaleString(i18n.resolvedLanguage, inTimeZone);
  return (
    <div className="mx-auto max-w-5xl space-y-4">
      <HistoryBackLink />
      <Panel level={1} eyebrow={t('rafflePage.eyebrow')} title={t('rafflePage.title', { id: raffleId })}>
        {query.isPending ? (
          <TableLoading />
        ) : !raffle ? (
          <Alert tone="error">{t('rafflePage.loadFailed')}</Alert>
        ) : (
          <div className="space-y-6">
            <dl className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4">
              <Fact label={t('rafflePage.status')}>
                <span data-testid="raffle-page-status" data-status={raffle.status}>
                  {t(`rafflePage.statuses.${raffle.status}`)}
                </span>
              </Fact>
              {/* Drawn: how many won (fewer than asked for when fewer entered); else how many will. */}
              {raffle.status === 'drawn' ? (
                <Fact label={t('rafflePage.winnersDrawn')}>
                  <span data-testid="raffle-page-places">
                    {t('rafflePage.winnersOf', { count: raffle.winners.length, racers: raffle.racers })}
                  </span>
                </Fact>
              ) : (
                <Fact label={t('rafflePage.winnersToDraw')}>
                  <span data-testid="raffle-page-places">{raffle.racers}</span>
                </Fact>
              )}
              <Fact label={t('rafflePage.openedAt')}>
                <time dateTime={raffle.openedAt}>{when(raffle.openedAt)}</time>
              </Fact>
              <Fact label={t('rafflePage.drawnAt')}>
                {raffle.drawnAt ? <time dateTime={raffle.drawnAt}>{when(raffle.drawnAt)}</time> : '—'}
              </Fact>
            </dl>

            {raffle.claimUntil && <ClaimCountdown claimUntil={raffle.claimUntil} />}

            <section aria-labelledby="raffle-winners-title">
              <h2 id="raffle-winners-title" className="mb-2 font-display text-xl font-black italic">
                {t('rafflePage.winners')}
              </h2>
              {raffle.winners.length === 0 ? (
                <p className="text-sm text-muted">
                  {t(raffle.status === 'aborted' ? 'rafflePage.noWinnersAborted' : 'rafflePage.noWinners')}
                </p>
              ) : (
                <ol data-testid="raffle-page-winners" className="list-decimal space-y-1 pl-6">
                  {raffle.winners.map((winner) => (
                    <li key={`${winner.platform}:${winner.platformUserId}`}>
                      <span className="font-semibold">{winner.displayName}</span>{' '}
                      <span className="text-sm text-muted">{t(`social.${winner.platform}`)}</span>
                    </li>
                  ))}
                </ol>
              )}
            </section>

            <section aria-labelledby="raffle-fairness-title" className="space-y-3">
              <h2 id="raffle-fairness-title" className="font-display text-xl font-black italic">
                {t('rafflePage.fairnessTitle')}
              </h2>
              <p className="text-sm text-muted">{t('rafflePage.fairnessText')}</p>
              <RaffleAudit
                raffle={raffle}
                texts={{
                  commitment: t('rafflePage.commitment'),
                  entriesHash: t('rafflePage.entriesHash'),
                  seed: t('rafflePage.seed'),
                  pending: t('rafflePage.pending'),
                }}
              />
              {raffle.status === 'drawn' && (
                <>
                  <h3 className="pt-2 font-semibold">{t('rafflePage.checkTitle')}</h3>
                  <RaffleVerification raffleId={raffle.id} entryCount={raffle.entryCount} />
                </>
              )}
              <aside aria-labelledby="raffle-command-title" className="space-y-2 border-l-2 border-line pl-3">
                <h3 id="raffle-command-title" className="text-sm font-semibold">
                  {t('rafflePage.verifyTitle')}
                </h3>
                <p className="text-sm text-muted">{t('rafflePage.verifyText')}</p>
                <VerifyCommand
                  command={`npm run verify-raffle -- ${raffleRecordUrl(raffle.id, live ? undefined : '')}`}
                />
              </aside>
            </section>

            <section aria-labelledby="raffle-entries-title" className="space-y-3">
              <div className="flex flex-wrap items-baseline justify-between gap-2">
                <h2 id="raffle-entries-title" className="font-display text-xl font-black italic">
                  {t('rafflePage.entries')}{' '}
                  <span
                    className="text-base font-normal text-muted not-italic"
                    data-testid="raffle-page-entry-count"
                  >
                    ({raffle.entryCount})
                  </span>
                </h2>
                <a
                  href={raffleRecordUrl(raffle.id, '')}
                  download={`raffle-${raffle.id}.json`}
                  className="text-sm font-semibold"
                  data-testid="raffle-download"
                >
                  {t('rafflePage.download')}
                </a>
              </div>
              <p className="text-sm text-muted">{t('rafflePage.oneEntryPerAccount')}</p>
              <RaffleEntriesTable raffleId={raffle.id} open={raffle.status === 'open'} />
            </section>
          </div>
        )}
      </Panel>
    </div>
  );
}
