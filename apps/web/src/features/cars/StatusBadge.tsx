import { useTranslation } from 'react-i18next';
import { cx } from '../../lib/cx';

/** Online/offline as a dot and a word (never colour alone). */
export function StatusBadge({ online, className }: { online: boolean; className?: string }) {
  const { t } = useTranslation();
  return (
    <span
      className={cx(
        'inline-flex items-center gap-1.5 rounded-full border px-2 py-0.5 text-xs font-bold uppercase tracking-wide',
        online ? 'border-success/40 bg-success/15 text-success' : 'border-line bg-surface-2 text-muted',
        className,
      )}
    >
      <span
        className={cx('size-2 rounded-full', online ? 'bg-success animate-pulse' : 'bg-muted')}
        aria-hidden="true"
      />
      {online ? t('cars.online') : t('cars.offline')}
    </span>
  );
}
