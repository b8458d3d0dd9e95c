/**
 * A raffle's audit data (issue 13, docs/raffle-fairness.md): the commitment published at the
 * opening, and once drawn the entries hash and the revealed seed. Shown by Race Control and by the
 * public raffle page; long hex strings wrap and stay selectable.
 */
import type { RaffleSummary } from '@telerace/protocol';
import type { ReactNode } from 'react';

export interface RaffleAuditTexts {
  commitment: string;
  entriesHash: string;
  seed: string;
  /** Stands for the hash and seed until the draw. */
  pending: string;
}

function Row({ label, testId, children }: { label: string; testId: string; children: ReactNode }) {
  return (
    <div className="grid gap-0.5 sm:grid-cols-[10rem_1fr] sm:gap-3">
      <dt className="text-xs font-semibold text-muted uppercase sm:pt-0.5">{label}</dt>
      <dd className="min-w-0 font-mono text-sm break-all select-all" data-testid={testId}>
        {children}
      </dd>
    </div>
  );
}

export function RaffleAudit({ raffle, texts }: { raffle: RaffleSummary; texts: RaffleAuditTexts }) {
  const later = <span className="font-sans text-muted italic">{texts.pending}</span>;
  return (
    <dl className="space-y-2">
      <Row label={texts.commitment} testId="raffle-commitment">
        {raffle.commitment}
      </Row>
      <Row label={texts.entriesHash} testId="raffle-entries-hash">
        {raffle.entriesHash ?? later}
      </Row>
      <Row label={texts.seed} testId="raffle-seed">
        {raffle.seed ?? later}
      </Row>
    </dl>
  );
}
