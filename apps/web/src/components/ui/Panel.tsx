import { type ReactNode, useId } from 'react';
import { cx } from '../../lib/cx';
import { Card } from './Card';

export interface PanelProps {
  title: ReactNode;
  /** Heading level of the title; screens use 1 for their main panel. */
  level?: 1 | 2 | 3;
  /** Small text above the title. */
  eyebrow?: ReactNode;
  /** Buttons or links shown next to the title. */
  actions?: ReactNode;
  className?: string;
  children?: ReactNode;
}

const titleSizes = { 1: 'text-2xl sm:text-3xl', 2: 'text-xl', 3: 'text-lg' } as const;

/** A titled section: a card with a racing stripe, a heading and content. */
export function Panel({ title, level = 2, eyebrow, actions, className, children }: PanelProps) {
  const titleId = useId();
  const Heading = `h${level}` as const;
  return (
    <Card className={cx('overflow-hidden', className)}>
      <section aria-labelledby={titleId}>
        <div className="racing-stripe h-1" aria-hidden="true" />
        <div className="flex flex-wrap items-start justify-between gap-3 px-5 pt-5 sm:px-6">
          <div className="min-w-0">
            {eyebrow && (
              <p className="mb-1 text-xs font-bold tracking-[0.2em] text-accent-2 uppercase">{eyebrow}</p>
            )}
            <Heading
              id={titleId}
              className={cx('font-display font-black tracking-tight italic', titleSizes[level])}
            >
              {title}
            </Heading>
          </div>
          {actions && <div className="flex shrink-0 flex-wrap gap-2">{actions}</div>}
        </div>
        <div className="px-5 pt-3 pb-5 sm:px-6 sm:pb-6">{children}</div>
      </section>
    </Card>
  );
}
