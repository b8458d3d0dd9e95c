/**
 * One on-screen joystick of the twin pair (spec §2 "Control page"): a single axis, driven by one
 * pointer (touch, pen or mouse) with pointer capture, so two thumbs drive the two sticks at once.
 * The knob follows the pointer within the pad and springs back to the centre on release. Up and
 * right are positive. The value is controlled by the parent, so the page can centre it (safety).
 */
import { type PointerEvent, useRef } from 'react';
import { cx } from '../../lib/cx';
import { clampUnit } from '../../lib/input-merge';

export interface JoystickProps {
  axis: 'vertical' | 'horizontal';
  value: number;
  onChange: (value: number) => void;
  label: string;
  /** Id of the text describing the keyboard alternative. */
  describedBy?: string;
  testId?: string;
  /** Smaller, over the video's lower corners (landscape, full screen). */
  compact?: boolean;
}

export function Joystick({
  axis,
  value,
  onChange,
  label,
  describedBy,
  testId,
  compact = false,
}: JoystickProps) {
  const padRef = useRef<HTMLDivElement>(null);
  const pointerRef = useRef<number | null>(null);
  const vertical = axis === 'vertical';

  const valueAt = (event: PointerEvent<HTMLDivElement>) => {
    const pad = padRef.current;
    if (!pad) return 0;
    const rect = pad.getBoundingClientRect();
    const half = (vertical ? rect.height : rect.width) / 2;
    if (half <= 0) return 0;
    const offset = vertical ? rect.top + half - event.clientY : event.clientX - (rect.left + half);
    // The knob reaches full deflection a little before the edge, where a thumb still has room.
    return clampUnit(offset / (half * 0.8));
  };

  const release = (event: PointerEvent<HTMLDivElement>) => {
    if (pointerRef.current !== event.pointerId) return;
    pointerRef.current = null;
    onChange(0);
  };

  const percent = Math.round(value * 100);
  // The knob's centre travels 28 % of the pad each way.
  const travel = `${50 + value * (vertical ? -28 : 28)}%`;
  return (
    <div
      ref={padRef}
      role="slider"
      aria-label={label}
      aria-orientation={axis}
      aria-valuemin={-100}
      aria-valuemax={100}
      aria-valuenow={percent}
      aria-describedby={describedBy}
      // Focusable: the page's driving keys (arrows, W/A/S/D) work with the stick focused too.
      tabIndex={0}
      data-testid={testId}
      onPointerDown={(event) => {
        if (pointerRef.current !== null) return;
        event.preventDefault();
        pointerRef.current = event.pointerId;
        event.currentTarget.setPointerCapture?.(event.pointerId);
        onChange(valueAt(event));
      }}
      onPointerMove={(event) => {
        if (pointerRef.current === event.pointerId) onChange(valueAt(event));
      }}
      onPointerUp={release}
      onPointerCancel={release}
      onLostPointerCapture={release}
      className={cx(
        'relative touch-none select-none rounded-full border-2 border-line bg-surface-2/80 shadow-inner',
        'focus-visible:outline-2 focus-visible:outline-offset-4 focus-visible:outline-ring',
        compact ? 'size-28 bg-surface-2/60' : 'size-36 sm:size-40',
        value !== 0 && 'border-accent',
      )}
    >
      <div
        className={cx(
          'pointer-events-none absolute rounded-full bg-line/70',
          vertical ? 'inset-y-4 left-1/2 w-2 -translate-x-1/2' : 'inset-x-4 top-1/2 h-2 -translate-y-1/2',
        )}
        aria-hidden="true"
      />
      <svg
        viewBox="0 0 24 24"
        className={cx(
          'pointer-events-none absolute size-5 text-muted',
          vertical ? 'top-2 left-1/2 -translate-x-1/2' : 'top-1/2 left-2 -translate-y-1/2 -rotate-90',
        )}
        aria-hidden="true"
        fill="currentColor"
      >
        <path d="m12 6 6 8H6z" />
      </svg>
      <svg
        viewBox="0 0 24 24"
        className={cx(
          'pointer-events-none absolute size-5 text-muted',
          vertical
            ? 'bottom-2 left-1/2 -translate-x-1/2 rotate-180'
            : 'top-1/2 right-2 -translate-y-1/2 rotate-90',
        )}
        aria-hidden="true"
        fill="currentColor"
      >
        <path d="m12 6 6 8H6z" />
      </svg>
      <div
        className={cx(
          'pointer-events-none absolute -translate-x-1/2 -translate-y-1/2 rounded-full border-4 shadow-lg',
          compact ? 'size-12' : 'size-16',
          'border-accent bg-gradient-to-br from-accent to-accent-hover',
          pointerRef.current === null && 'transition-[top,left] duration-150',
        )}
        style={vertical ? { top: travel, left: '50%' } : { left: travel, top: '50%' }}
        data-testid={testId ? `${testId}-knob` : undefined}
        aria-hidden="true"
      />
    </div>
  );
}
