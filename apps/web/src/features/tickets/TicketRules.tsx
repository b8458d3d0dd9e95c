/**
 * The ticket rules (spec §9), written from the business constants so the text can never disagree
 * with the formula the server applies. Shown in the FAQ and in the ticket-info modal.
 */
import {
  computeTickets,
  LOYALTY_PER_EXTRA_YEAR,
  LOYALTY_TIERS,
  loyaltyTickets,
  TICKETS,
} from '@telerace/protocol';
import { useTranslation } from 'react-i18next';
import { ScrollTable, ScrollTableHead } from '../../components/ui/ScrollTable';
import { cx } from '../../lib/cx';

/** The social platforms a user can link, each worth `TICKETS.perLinkedAccount`. */
const LINKABLE_PLATFORMS = ['twitch', 'youtube', 'discord'] as const;

export interface TicketRulesProps {
  /** Level of the sub-headings, one below the heading that introduces the rules. */
  headingLevel?: 2 | 3 | 4;
  className?: string;
}

/** A row of the loyalty table: how long one has followed, and the bonus tickets it gives. */
function LoyaltyRow({ length, tickets }: { length: string; tickets: number }) {
  const { t } = useTranslation();
  return (
    <tr>
      <th scope="row" className="px-4 py-2 font-normal">
        {length}
      </th>
      <td className="px-4 py-2 text-right font-semibold text-accent tabular-nums">
        {t('pages.tickets.loyalty.bonus', { value: tickets })}
      </td>
    </tr>
  );
}

export function TicketRules({ headingLevel = 3, className }: TicketRulesProps) {
  const { t } = useTranslation();
  const Heading = `h${headingLevel}` as const;
  const headingClass = 'text-base font-bold text-fg';

  const tierLabel = (months: number) => {
    if (months === 0) return t('pages.tickets.loyalty.justSubscribed');
    if (months % 12 === 0) return t('pages.tickets.loyalty.years', { count: months / 12 });
    return t('pages.tickets.loyalty.months', { count: months });
  };

  const maxLinked = TICKETS.perLinkedAccount * LINKABLE_PLATFORMS.length;
  const topTier = LOYALTY_TIERS[LOYALTY_TIERS.length - 1];
  const exampleMonths = topTier?.months ?? 0;
  const example = {
    duration: tierLabel(exampleMonths),
    base: TICKETS.base,
    linked: maxLinked,
    loyalty: loyaltyTickets(exampleMonths),
    total: computeTickets({
      linkedAccounts: LINKABLE_PLATFORMS.length,
      activeSubscriptionMonths: [exampleMonths],
      donations: [],
      adjustments: 0,
      now: new Date(),
    }),
  };

  return (
    <div className={cx('space-y-5 leading-relaxed', className)}>
      <p>{t('pages.tickets.intro')}</p>

      <section className="space-y-2">
        <Heading className={headingClass}>{t('pages.tickets.sources.title')}</Heading>
        <ul className="list-disc space-y-1.5 pl-6 marker:text-accent">
          <li>{t('pages.tickets.sources.base', { base: TICKETS.base })}</li>
          <li>
            {t('pages.tickets.sources.linked', { perLinkedAccount: TICKETS.perLinkedAccount, maxLinked })}
          </li>
          <li>{t('pages.tickets.sources.loyalty')}</li>
          <li>{t('pages.tickets.sources.donation', { count: TICKETS.perDonatedDollar })}</li>
        </ul>
      </section>

      <section className="space-y-3">
        <Heading className={headingClass}>{t('pages.tickets.loyalty.title')}</Heading>
        <p>{t('pages.tickets.loyalty.text')}</p>
        <ScrollTable label={t('pages.tickets.loyalty.caption')}>
          <ScrollTableHead
            columns={[
              { label: t('pages.tickets.loyalty.length') },
              { label: t('pages.tickets.loyalty.tickets'), numeric: true },
            ]}
          />
          <tbody className="divide-y divide-line">
            {LOYALTY_TIERS.map((tier) => (
              <LoyaltyRow key={tier.months} length={tierLabel(tier.months)} tickets={tier.tickets} />
            ))}
            <LoyaltyRow length={t('pages.tickets.loyalty.extraYear')} tickets={LOYALTY_PER_EXTRA_YEAR} />
          </tbody>
        </ScrollTable>
      </section>

      <section className="space-y-2">
        <Heading className={headingClass}>{t('pages.tickets.donations.title')}</Heading>
        <p>
          {t('pages.tickets.donations.rate', { count: TICKETS.perDonatedDollar, cap: TICKETS.donationCap })}
        </p>
        <p>{t('pages.tickets.donations.expiry', { count: TICKETS.donationExpiryDays })}</p>
        <p>{t('pages.tickets.donations.voluntary')}</p>
      </section>

      <section className="space-y-2">
        <Heading className={headingClass}>{t('pages.tickets.limits.title')}</Heading>
        <ul className="list-disc space-y-1.5 pl-6 marker:text-accent">
          <li>{t('pages.tickets.limits.cap', { totalCap: TICKETS.totalCap })}</li>
          <li>{t('pages.tickets.limits.value')}</li>
          <li>{t('pages.tickets.limits.adjust')}</li>
          <li>{t('pages.tickets.limits.badge')}</li>
        </ul>
      </section>

      <p className="rounded-xl border border-line bg-surface-2 px-4 py-3 text-sm">
        {t('pages.tickets.example', example)}
      </p>
    </div>
  );
}
