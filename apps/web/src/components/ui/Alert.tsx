import type { ReactNode } from 'react';
import { cx } from '../../lib/cx';

export type AlertTone = 'info' | 'success' | 'warning' | 'error';

export interface AlertProps {
  tone?: AlertTone;
  title?: ReactNode;
  children?: ReactNode;
  className?: string;
}

const tones: Record<AlertTone, string> = {
  info: 'border-accent-2/50 before:bg-accent-2',
  success: 'border-success/50 before:bg-success',
  warning: 'border-warning/50 before:bg-warning',
  error: 'border-danger/60 before:bg-danger',
};

/** A message box. Errors are announced at once (role="alert"); other tones politely (role="status"). */
export function Alert({ tone = 'info', title, children, className }: AlertProps) {
  return (
    <div
      role={tone === 'error' ? 'alert' : 'status'}
      className={cx(
        'relative overflow-hidden rounded-xl border bg-surface-2 py-3 pr-4 pl-5 text-sm text-fg',
        'before:absolute before:inset-y-0 before:left-0 before:w-1.5',
        tones[tone],
        className,
      )}
    >
      {title && <p className="font-semibold">{title}</p>}
      {children && <div className={cx(title ? 'mt-1 text-muted' : undefined)}>{children}</div>}
    </div>
  );
}
