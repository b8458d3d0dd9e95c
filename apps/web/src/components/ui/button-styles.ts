/** Shared class lists so buttons and links that look like buttons stay identical. */
import { cx } from '../../lib/cx';

export type ButtonVariant = 'primary' | 'secondary' | 'ghost' | 'danger';
/**
 * `bar`: compact on phones, `sm` from the `sm` breakpoint up (top bar). `wrap`: as `sm`, but the
 * label may take two lines (a narrow card over the video, a long French label).
 */
export type ButtonSize = 'bar' | 'sm' | 'md' | 'lg' | 'wrap';

const base =
  'inline-flex items-center justify-center gap-2 rounded-lg font-semibold no-underline ' +
  'transition-colors duration-150 select-none ' +
  'focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring ' +
  'disabled:cursor-not-allowed disabled:opacity-55 aria-disabled:cursor-not-allowed aria-disabled:opacity-55';

const variants: Record<ButtonVariant, string> = {
  primary: 'bg-accent text-accent-fg hover:bg-accent-hover shadow-sm shadow-accent/20',
  secondary: 'border border-line bg-surface text-fg hover:bg-surface-2 hover:border-muted',
  ghost: 'text-fg hover:bg-surface-2',
  danger: 'bg-danger text-danger-fg hover:opacity-90',
};

const sizes: Record<ButtonSize, string> = {
  bar: 'h-8 px-2 text-xs whitespace-nowrap sm:h-9 sm:px-3 sm:text-sm',
  sm: 'h-9 px-3 text-sm whitespace-nowrap',
  md: 'h-10 px-4 text-sm whitespace-nowrap',
  lg: 'h-12 px-6 text-base whitespace-nowrap',
  wrap: 'min-h-9 px-3 py-1.5 text-sm leading-tight text-center',
};

export function buttonClasses(variant: ButtonVariant = 'primary', size: ButtonSize = 'md', extra?: string) {
  return cx(base, variants[variant], sizes[size], extra);
}

/** A square, borderless button holding one icon (theme toggle, hamburger, close). */
export const iconButtonClasses = cx(
  base,
  'size-9 shrink-0 text-fg sm:size-10 hover:bg-surface-2 [&:not(:disabled)]:active:scale-95',
);
