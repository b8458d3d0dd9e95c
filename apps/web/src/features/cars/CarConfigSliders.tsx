/**
 * A car's speed limits and steering trim as sliders (spec §2, §5: forward and backward speed 20–100 %,
 * trim −50…50, step 1), and the state of editing and saving them: shared by the admin's settings
 * panel on the control page and the Car Status tab's "Speed & trim" dialog.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { CAR_CONFIG_LIMITS, type Car, type CarConfig } from '@telerace/protocol';
import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { retryUnreached } from '../../lib/write-retry';
import { apiErrorText } from '../auth/error-text';
import { invalidateCars } from './admin-cars-api';
import { saveCarConfig } from './cars-api';

function Slider({
  label,
  value,
  min,
  max,
  unit,
  onChange,
}: {
  label: string;
  value: number;
  min: number;
  max: number;
  unit: string;
  onChange: (value: number) => void;
}) {
  const id = useId();
  return (
    <div>
      <div className="mb-1 flex items-baseline justify-between gap-2">
        <label htmlFor={id} className="text-sm font-semibold">
          {label}
        </label>
        <output htmlFor={id} className="font-mono text-sm tabular-nums text-accent-2">
          {value > 0 && min < 0 ? `+${value}` : value}
          {unit}
        </output>
      </div>
      <input
        id={id}
        type="range"
        min={min}
        max={max}
        step={1}
        value={value}
        onChange={(event) => onChange(Number(event.target.value))}
        className="h-2 w-full cursor-pointer accent-[var(--tr-accent)]"
      />
      <div className="mt-0.5 flex justify-between text-[0.7rem] text-muted tabular-nums" aria-hidden="true">
        <span>{min}</span>
        <span>{max}</span>
      </div>
    </div>
  );
}

const { speedPercent, trim } = CAR_CONFIG_LIMITS;
const SLIDERS = [
  { field: 'forwardSpeedPercent', label: 'control.settings.forward', limits: speedPercent, unit: '%' },
  { field: 'backwardSpeedPercent', label: 'control.settings.backward', limits: speedPercent, unit: '%' },
  { field: 'trimValue', label: 'control.settings.trim', limits: trim, unit: '' },
] as const satisfies readonly { field: keyof CarConfig; label: string; limits: object; unit: string }[];

export function CarConfigSliders({
  config,
  onChange,
}: {
  config: CarConfig;
  onChange: (patch: Partial<CarConfig>) => void;
}) {
  const { t } = useTranslation();
  return SLIDERS.map(({ field, label, limits, unit }) => (
    <Slider
      key={field}
      label={t(label)}
      value={config[field]}
      min={limits.min}
      max={limits.max}
      unit={unit}
      onChange={(value) => onChange({ [field]: value })}
    />
  ));
}

export function configOf(car: Car): CarConfig {
  return {
    forwardSpeedPercent: car.config_forward_speed,
    backwardSpeedPercent: car.config_backward_speed,
    trimValue: car.config_steering_trim,
  };
}

export interface CarConfigEditor {
  /** What the sliders show: the admin's edit, else the car's saved values; null until the car is known. */
  config: CarConfig | null;
  change: (patch: Partial<CarConfig>) => void;
  save: () => Promise<void>;
  busy: boolean;
  /** The last save's outcome, cleared by the next change. */
  result: { tone: 'success' | 'error'; text: string } | null;
}

/**
 * Edits start from the car's saved values and follow them (a refreshed car) until the admin moves a
 * slider; a save keeps the edit, which is what the car now has.
 */
export function useCarConfigEditor(car: Car | undefined): CarConfigEditor {
  const { t, i18n } = useTranslation();
  const [edited, setEdited] = useState<CarConfig | null>(null);
  const queryClient = useQueryClient();
  const saving = useMutation({
    mutationFn: ({ carId, next }: { carId: number; next: CarConfig }) => saveCarConfig(carId, next),
    // The same values sent again set the same config.
    retry: retryUnreached,
    onSuccess: () => invalidateCars(queryClient),
  });
  const config = edited ?? (car ? configOf(car) : null);
  const result: CarConfigEditor['result'] = saving.isSuccess
    ? { tone: 'success', text: t('control.settings.saved') }
    : saving.isError
      ? { tone: 'error', text: apiErrorText(t, i18n, saving.error, 'control.settings.failed') }
      : null;

  const change = (patch: Partial<CarConfig>) => {
    if (!config) return;
    setEdited({ ...config, ...patch });
    saving.reset();
  };

  const save = async () => {
    if (!car || !config || saving.isPending) return;
    // A failure is shown from the mutation's state (`result`).
    await saving.mutateAsync({ carId: car.id, next: config }).catch(() => undefined);
  };

  return { config, change, save, busy: saving.isPending, result };
}
