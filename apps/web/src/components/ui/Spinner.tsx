import { useTranslation } from 'react-i18next';
import { cx } from '../../lib/cx';

export interface SpinnerProps {
  size?: 'sm' | 'md' | 'lg';
  /** Announced to screen readers; defaults to "Loading…". */
  label?: string;
  /** Inside a control that already says what is happening: hidden from assistive technology. */
  decorative?: boolean;
  className?: string;
}

const sizes = { sm: 'size-4 border-2', md: 'size-6 border-2', lg: 'size-10 border-[3px]' } as const;

export function Spinner({ size = 'md', label, decorative = false, className }: SpinnerProps) {
  const { t } = useTranslation();
  const ring = (
    <span
      className={cx(
        'inline-block animate-spin rounded-full border-current border-r-transparent',
        sizes[size],
        className,
      )}
      aria-hidden="true"
    />
  );
  if (decorative) return ring;
  return (
    <span role="status" className="inline-flex items-center">
      {ring}
      <span className="sr-only">{label ?? t('common.loading')}</span>
    </span>
  );
}
