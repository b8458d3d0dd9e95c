/** A "how long ago" cell (spec §9), the full local date and time on hover; 'Never' when there is no time. */
import { useTranslation } from 'react-i18next';
import { cx } from '../../lib/cx';
import { formatRelativeTime } from '../../lib/relative-time';
import { useTimeZoneOptions } from '../../lib/use-hydrated';
import { bodyCell } from './table-styles';

export function TimeAgoCell({ at, now, className }: { at: string | null; now: Date; className?: string }) {
  const { t, i18n } = useTranslation();
  const inTimeZone = useTimeZoneOptions();
  return (
    <td
      className={cx(bodyCell, 'whitespace-nowrap', className)}
      title={at ? new Date(at).toLocaleString(i18n.resolvedLanguage, inTimeZone) : undefined}
    >
      {formatRelativeTime(t, at, now)}
    </td>
  );
}
