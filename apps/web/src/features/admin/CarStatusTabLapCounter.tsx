/**
 * The car's lap counter id in the Car Status tab: the transponder (ZRound / RiCino), the pilot id
 * or `node:N` (RotorHazard) the lap counter reports for this car. Empty clears it.
 */
import { useQueryClient } from '@tanstack/react-query';
import { type AdminCar, LapCounterIdRequest } from '@telerace/protocol';
import { type FormEvent, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '../../components/ui/Button';
import { cx } from '../../lib/cx';
import { retryUnreached } from '../../lib/write-retry';
import { ADMIN_CARS_KEY, saveLapCounterId } from '../cars/admin-cars-api';
import type { FormStatus } from '../profile/form-status';
import { useFormSave } from '../profile/use-form-save';

export function LapCounterIdField({ car }: { car: AdminCar }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const id = useId();
  // null: show the server's value (kept fresh by the 5 s refresh) until the admin types.
  const [text, setText] = useState<string | null>(null);
  const [invalid, setInvalid] = useState(false);
  const { status, busy, clearStatus, save } = useFormSave('carStatus.lapCounter.failed', {
    write: (lapCounterId: string | null) => saveLapCounterId(car.id, lapCounterId),
    saved: (saved) => {
      queryClient.setQueryData<AdminCar[]>(ADMIN_CARS_KEY, (cars) =>
        cars?.map((each) => (each.id === saved.id ? saved : each)),
      );
      setText(null);
      return t('carStatus.lapCounter.saved');
    },
    // A PUT: the same id sent twice sets it once.
    retry: retryUnreached,
  });
  const result: FormStatus = invalid ? { tone: 'error', text: t('carStatus.lapCounter.invalid') } : status;
  const value = text ?? car.lap_counter_id ?? '';

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    const parsed = LapCounterIdRequest.safeParse({ lap_counter_id: value.trim() === '' ? null : value });
    clearStatus();
    setInvalid(!parsed.success);
    if (parsed.success) save(parsed.data.lap_counter_id);
  };

  return (
    <form noValidate onSubmit={onSubmit} className="min-w-36" data-testid={`lap-counter-id-${car.id}`}>
      <label htmlFor={id} className="sr-only">
        {t('carStatus.lapCounter.label', { car: car.name })}
      </label>
      <div className="flex items-center gap-1">
        <input
          id={id}
          name="lap_counter_id"
          value={value}
          placeholder={t('carStatus.lapCounter.placeholder')}
          spellCheck={false}
          autoComplete="off"
          maxLength={40}
          aria-invalid={result?.tone === 'error' || undefined}
          aria-describedby={result ? `${id}-result` : undefined}
          onChange={(event) => {
            setText(event.target.value);
            setInvalid(false);
            clearStatus();
          }}
          className={cx(
            'h-8 w-24 rounded-md border border-line bg-bg px-2 font-mono text-sm text-fg placeholder:text-muted/70',
            'focus-visible:border-ring focus-visible:outline-2 focus-visible:outline-ring aria-invalid:border-danger',
          )}
        />
        <Button
          type="submit"
          variant="secondary"
          size="sm"
          className="h-8! px-2! text-xs!"
          disabled={busy}
          aria-label={t('carStatus.lapCounter.saveLabel', { car: car.name })}
        >
          {t('carStatus.lapCounter.save')}
        </Button>
      </div>
      {result && (
        <p
          id={`${id}-result`}
          role={result.tone === 'error' ? 'alert' : 'status'}
          className={cx('mt-1 max-w-48 text-xs', result.tone === 'error' ? 'text-danger' : 'text-muted')}
        >
          {result.text}
        </p>
      )}
    </form>
  );
}
