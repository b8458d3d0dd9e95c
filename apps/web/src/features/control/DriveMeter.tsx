/** What is being sent to the car: throttle and steering as bars with their values. */
import { useTranslation } from 'react-i18next';
import type { DriveInput } from '../../lib/input-merge';

function Bar({ label, value }: { label: string; value: number }) {
  const percent = Math.round(value * 100);
  const width = `${Math.abs(value) * 50}%`;
  return (
    <div className="flex items-center gap-2">
      <span className="w-24 shrink-0 truncate text-[0.7rem] font-semibold text-white/70 uppercase">
        {label}
      </span>
      <div className="relative h-2 flex-1 overflow-hidden rounded-full bg-white/15">
        <div className="absolute inset-y-0 left-1/2 w-px bg-white/40" aria-hidden="true" />
        <div
          className="absolute inset-y-0 rounded-full bg-[var(--tr-accent)]"
          style={value >= 0 ? { left: '50%', width } : { right: '50%', width }}
        />
      </div>
      <span className="w-12 shrink-0 text-right font-mono text-xs text-white tabular-nums">
        {percent > 0 ? `+${percent}` : percent}%
      </span>
    </div>
  );
}

export function DriveMeter({ input }: { input: DriveInput }) {
  const { t } = useTranslation();
  return (
    <div
      // Phones show the joysticks right under the video; the meter would hide the small picture.
      className="hidden max-w-xs space-y-1 rounded-xl bg-black/75 px-3 py-2 sm:block"
      data-testid="drive-meter"
      data-throttle={input.throttle}
      data-steer={input.steer}
    >
      <Bar label={t('control.throttle')} value={input.throttle} />
      <Bar label={t('control.steer')} value={input.steer} />
    </div>
  );
}
