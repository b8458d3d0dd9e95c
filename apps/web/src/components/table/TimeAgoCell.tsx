/** A "how long ago" cell (spec §9), the full local date and time on hover; 'Never' when there is no time. */
import { useTranslation } from 'react-i18next';
import { formatRelativeTime } from '../../lib/relative-time';
import { bodyCell } from './table-styles';

export function TimeAgoCell({ at, now }: { at: string | null; now: Date }) {
  const { t, i18n } = useTranslation();
  return (
    <td
      className={`${bodyCell} whitespace-nowrap`}
      title={at ? new Date(at).toLocaleString(i18n.resolvedLanguage) : undefined}
    >
      {formatRelativeTime(t, at, now)}
    </td>
  );
}
