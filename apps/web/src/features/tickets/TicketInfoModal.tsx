/** The ticket-info modal (spec §2, §9): the user's total, where it comes from, and the rules. */
import type { TicketsResponse } from '@telerace/protocol';
import { useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { buttonClasses } from '../../components/ui/button-styles';
import { Modal } from '../../components/ui/Modal';
import { TicketRules } from './TicketRules';

const BREAKDOWN = ['base', 'linkedAccounts', 'loyalty', 'donations', 'adjustments'] as const;

export interface TicketInfoModalProps {
  open: boolean;
  onClose: () => void;
  tickets: TicketsResponse;
}

export function TicketInfoModal({ open, onClose, tickets }: TicketInfoModalProps) {
  const { t, i18n } = useTranslation();
  // The rules below are long: focus starts on Close so the modal opens at its top.
  const closeRef = useRef<HTMLButtonElement>(null);
  const number = (value: number) => value.toLocaleString(i18n.resolvedLanguage);
  return (
    <Modal
      open={open}
      onClose={onClose}
      size="lg"
      title={t('tickets.modal.title')}
      description={t('tickets.modal.description')}
      initialFocusRef={closeRef}
      footer={
        <button ref={closeRef} type="button" className={buttonClasses('primary', 'md')} onClick={onClose}>
          {t('common.close')}
        </button>
      }
    >
      <div className="space-y-6">
        <section
          aria-labelledby="ticket-breakdown"
          className="rounded-xl border border-line bg-surface-2/60 p-4"
        >
          <div className="flex items-baseline justify-between gap-3">
            <h3 id="ticket-breakdown" className="text-sm font-bold tracking-[0.15em] text-muted uppercase">
              {t('tickets.modal.breakdown')}
            </h3>
            <p className="font-display text-3xl font-black text-accent italic tabular-nums">
              <span className="sr-only">{t('tickets.modal.total')}: </span>
              {number(tickets.tickets)}
            </p>
          </div>
          <dl className="mt-3 divide-y divide-line text-sm">
            {BREAKDOWN.map((part) => (
              <div key={part} className="flex justify-between gap-3 py-1.5">
                <dt className="text-muted">{t(`tickets.modal.${part}`)}</dt>
                <dd className="font-semibold tabular-nums">
                  {part === 'adjustments' && tickets.breakdown[part] > 0 ? '+' : ''}
                  {number(tickets.breakdown[part])}
                </dd>
              </div>
            ))}
            <div className="flex justify-between gap-3 py-1.5 font-bold">
              <dt>{t('tickets.modal.total')}</dt>
              <dd className="tabular-nums">{number(tickets.tickets)}</dd>
            </div>
          </dl>
        </section>
        <section className="space-y-3">
          <h3 className="font-display text-lg font-black tracking-tight italic">
            {t('tickets.modal.rules')}
          </h3>
          <TicketRules headingLevel={4} className="text-sm" />
        </section>
      </div>
    </Modal>
  );
}
