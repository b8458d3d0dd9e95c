/**
 * The twin joysticks (spec §2 "Control page": left throttle, right steer), placed two ways:
 * - `JoystickPanel`: under the video, with the keyboard hint between them (desktop, portrait);
 * - `StageJoysticks`: over the video's lower corners, where the thumbs rest, when the stage fills
 *   a phone held sideways or the screen (issue 25). The rest of the stage lets the pointer through.
 */
import { useTranslation } from 'react-i18next';
import { cx } from '../../lib/cx';
import { Joystick } from './Joystick';

type Axis = 'throttle' | 'steer';

export interface JoysticksProps {
  joystick: { throttle: number; steer: number };
  onChange: (axis: Axis, value: number) => void;
  /** Id of the text describing the keyboard alternative. */
  describedBy: string;
}

/** One stick of the pair with its caption: throttle moves up and down, steering sideways. */
function CaptionedJoystick({
  axis,
  value,
  onChange,
  describedBy,
  compact = false,
}: {
  axis: Axis;
  value: number;
  onChange: (axis: Axis, value: number) => void;
  describedBy?: string;
  compact?: boolean;
}) {
  const { t } = useTranslation();
  const label = t(`control.${axis}`);
  return (
    <div className={cx('flex flex-col items-center', compact ? 'gap-1' : 'gap-2')}>
      <Joystick
        axis={axis === 'throttle' ? 'vertical' : 'horizontal'}
        value={value}
        onChange={(next) => onChange(axis, next)}
        label={label}
        describedBy={describedBy}
        testId={`joystick-${axis}`}
        compact={compact}
      />
      <span
        className={cx(
          'text-xs font-semibold uppercase',
          compact ? 'rounded bg-black/60 px-1.5 text-white' : 'text-muted',
        )}
      >
        {label}
      </span>
    </div>
  );
}

export function JoystickPanel({ joystick, onChange, describedBy }: JoysticksProps) {
  const { t } = useTranslation();
  return (
    <section
      aria-label={t('control.joysticks')}
      className="flex items-center justify-between gap-3 rounded-2xl border border-line bg-surface px-3 py-4 sm:px-8"
    >
      <CaptionedJoystick
        axis="throttle"
        value={joystick.throttle}
        onChange={onChange}
        describedBy={describedBy}
      />
      <p id={describedBy} className="hidden max-w-56 text-center text-xs text-muted sm:block">
        {t('control.keyboardHint')}
      </p>
      <CaptionedJoystick axis="steer" value={joystick.steer} onChange={onChange} describedBy={describedBy} />
    </section>
  );
}

export function StageJoysticks({ joystick, onChange }: Omit<JoysticksProps, 'describedBy'>) {
  const { t } = useTranslation();
  return (
    <section
      aria-label={t('control.joysticks')}
      className="pointer-events-none absolute inset-x-2 bottom-2 flex items-end justify-between sm:inset-x-4 sm:bottom-3"
      data-testid="stage-joysticks"
    >
      <div className="pointer-events-auto">
        <CaptionedJoystick axis="throttle" value={joystick.throttle} onChange={onChange} compact />
      </div>
      <div className="pointer-events-auto">
        <CaptionedJoystick axis="steer" value={joystick.steer} onChange={onChange} compact />
      </div>
    </section>
  );
}
