/**
 * The admin's car settings on the control page (spec §2, §5): forward and backward speed 20–100 %,
 * steering trim −50…50, step 1, starting from the car's saved values; Save posts them.
 */
import { CAR_CONFIG_LIMITS, type Car, type CarConfig } from '@telerace/protocol';
import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Alert } from '../../components/ui/Alert';
import { Button } from '../../components/ui/Button';
import { LineIcon } from '../../components/ui/Icon';
import { cx } from '../../lib/cx';
import { saveCarConfig } from '../cars/cars-api';

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

export function configOf(car: Car): CarConfig {
  return {
    forwardSpeedPercent: car.config_forward_speed,
    backwardSpeedPercent: car.config_backward_speed,
    trimValue: car.config_steering_trim,
  };
}

export function CarSettingsPanel({ carId, car }: { carId: string; car: Car | undefined }) {
  const { t } = useTranslation();
  const panelId = useId();
  const [open, setOpen] = useState(false);
  const [edited, setEdited] = useState<CarConfig | null>(null);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<'saved' | 'failed' | null>(null);
  const config = edited ?? (car ? configOf(car) : null);
  const { speedPercent, trim } = CAR_CONFIG_LIMITS;

  const change = (patch: Partial<CarConfig>) => {
    if (!config) return;
    setEdited({ ...config, ...patch });
    setResult(null);
  };

  const save = async () => {
    if (!config) return;
    setBusy(true);
    setResult(null);
    try {
      await saveCarConfig(carId, config);
      setResult('saved');
    } catch {
      setResult('failed');
    } finally {
      setBusy(false);
    }
  };

  return (
    <section
      className="overflow-hidden rounded-2xl border border-line bg-surface"
      aria-label={t('control.settings.title')}
    >
      <h2>
        <button
          type="button"
          aria-expanded={open}
          aria-controls={panelId}
          onClick={() => setOpen((value) => !value)}
          className="flex w-full items-center justify-between gap-3 px-4 py-3 text-left font-display font-black italic hover:bg-surface-2 focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-ring"
        >
          <span className="flex items-center gap-2">
            <span className="rounded bg-accent-2/15 px-1.5 py-0.5 text-[0.65rem] font-bold tracking-wider text-accent-2 uppercase not-italic">
              {t('control.settings.adminBadge')}
            </span>
            {t('control.settings.title')}
          </span>
          <LineIcon className={cx('transition-transform', open && 'rotate-180')}>
            <path strokeLinecap="round" strokeLinejoin="round" d="m6 9 6 6 6-6" />
          </LineIcon>
        </button>
      </h2>
      <div id={panelId} hidden={!open} className="space-y-4 border-t border-line px-4 py-4">
        {!config ? (
          <p className="text-sm text-muted">{t('control.settings.loading')}</p>
        ) : (
          <>
            <Slider
              label={t('control.settings.forward')}
              value={config.forwardSpeedPercent}
              min={speedPercent.min}
              max={speedPercent.max}
              unit="%"
              onChange={(forwardSpeedPercent) => change({ forwardSpeedPercent })}
            />
            <Slider
              label={t('control.settings.backward')}
              value={config.backwardSpeedPercent}
              min={speedPercent.min}
              max={speedPercent.max}
              unit="%"
              onChange={(backwardSpeedPercent) => change({ backwardSpeedPercent })}
            />
            <Slider
              label={t('control.settings.trim')}
              value={config.trimValue}
              min={trim.min}
              max={trim.max}
              unit=""
              onChange={(trimValue) => change({ trimValue })}
            />
            <Button onClick={() => void save()} busy={busy} className="w-full">
              {t('control.settings.save')}
            </Button>
            {result === 'saved' && <Alert tone="success">{t('control.settings.saved')}</Alert>}
            {result === 'failed' && <Alert tone="error">{t('control.settings.failed')}</Alert>}
          </>
        )}
      </div>
    </section>
  );
}
