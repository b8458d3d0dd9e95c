/**
 * A raffle's entries, paged (issue 23: a chat raffle may hold tens of thousands), in the canonical
 * order the draw's hash is taken in: name, platform, weight. Read again every 5 s while the raffle
 * is open. Shown by the public raffle page and by the admin's Race Control tab.
 */
import type { RaffleEntriesPage } from '@telerace/protocol';
import { useTranslation } from 'react-i18next';
import { PagedTable } from '../../components/table/PagedTable';
import { bodyCell, numberCell } from '../../components/table/table-styles';
import { usePagedQuery } from '../../components/table/use-paged-query';
import { fetchRaffleEntries, raffleEntriesKey } from './raffles-api';

export function RaffleEntriesTable({ raffleId, open }: { raffleId: number; open: boolean }) {
  const { t } = useTranslation();
  const paged = usePagedQuery(
    raffleEntriesKey(raffleId),
    (page, limit) => fetchRaffleEntries(raffleId, page, limit),
    {
      refresh: open,
    },
  );
  return (
    <PagedTable<RaffleEntriesPage, RaffleEntriesPage['data'][number]>
      paged={paged}
      rowsOf={(page) => page.data}
      texts={{
        caption: t('rafflePage.entriesCaption'),
        pager: t('rafflePage.entries'),
        loadFailed: t('rafflePage.entriesLoadFailed'),
        empty: t('rafflePage.noEntries'),
      }}
      columns={[
        { label: t('rafflePage.columns.name') },
        { label: t('rafflePage.columns.platform') },
        { label: t('rafflePage.columns.weight'), numeric: true },
      ]}
      headTestId="raffle-entries-head"
    >
      {(entry) => (
        <tr key={`${entry.platform}:${entry.platformUserId}`} data-testid="raffle-entry">
          <th scope="row" className={`${bodyCell} max-w-[16rem] text-left font-semibold break-words`}>
            {entry.displayName}
          </th>
          <td className={bodyCell}>{t(`social.${entry.platform}`)}</td>
          <td className={numberCell}>{entry.weight}</td>
        </tr>
      )}
    </PagedTable>
  );
}
