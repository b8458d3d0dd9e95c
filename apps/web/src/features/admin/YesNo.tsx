import { useTranslation } from 'react-i18next';
import { cx } from '../../lib/cx';

/** A yes/no cell; `alarming` paints a yes in the danger colour (banned). */
export function YesNo({ value, alarming = false }: { value: boolean; alarming?: boolean }) {
  const { t } = useTranslation();
  if (!value) return <span className="text-muted">{t('admin.no')}</span>;
  return (
    <span
      className={cx(
        'rounded-md px-1.5 py-0.5 text-xs font-bold uppercase',
        alarming ? 'bg-danger/15 text-danger' : 'bg-success/15 text-success',
      )}
    >
      {t('admin.yes')}
    </span>
  );
}
