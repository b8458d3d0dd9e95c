/**
 * The control-code dialog (spec §2 "Car selection", §5): the code is upper-cased as typed; an
 * empty code is refused before any call ('A control code is required.'); on success the control
 * token is kept for this tab and the driver goes to the car's control page.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { Car } from '@telerace/protocol';
import { type FormEvent, useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { Alert } from '../../components/ui/Alert';
import { Button } from '../../components/ui/Button';
import { Modal } from '../../components/ui/Modal';
import { cx } from '../../lib/cx';
import { apiErrorText } from '../auth/error-text';
import { inputClasses } from '../auth/form-fields';
import { CARS_QUERY_KEY, connectToCar, storeControlToken, storeVideoPin } from './cars-api';

export function ConnectModal({ car, onClose }: { car: Car | null; onClose: () => void }) {
  if (!car) return null;
  return <ConnectDialog key={car.id} car={car} onClose={onClose} />;
}

function ConnectDialog({ car, onClose }: { car: Car; onClose: () => void }) {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const formId = useId();
  const inputId = useId();
  const errorId = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  const [code, setCode] = useState('');
  const [missingCode, setMissingCode] = useState(false);
  const queryClient = useQueryClient();
  const connect = useMutation({
    mutationFn: (trimmed: string) => connectToCar(car.id, trimmed),
    onSuccess: ({ car: connected, controlToken }) => {
      storeControlToken(car.id, controlToken);
      storeVideoPin(car.id, connected.video?.pin);
      // The car now has a driver: its status and the list say so.
      void queryClient.invalidateQueries({ queryKey: CARS_QUERY_KEY });
      navigate(`/control/${car.id}/${connected.stream_id}`);
    },
    onError: () => inputRef.current?.focus(),
  });
  // The control page takes over on success: the button stays busy until it shows.
  const busy = connect.isPending || connect.isSuccess;
  const error = missingCode
    ? t('errors.controlCodeRequired')
    : connect.error
      ? apiErrorText(t, i18n, connect.error, 'cars.connectFailed')
      : null;
  const clearError = () => {
    setMissingCode(false);
    connect.reset();
  };

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    const trimmed = code.trim();
    clearError();
    if (trimmed === '') {
      setMissingCode(true);
      inputRef.current?.focus();
      return;
    }
    connect.mutate(trimmed);
  };

  return (
    <Modal
      open
      onClose={onClose}
      size="sm"
      title={t('cars.connectTitle', { name: car.name })}
      description={t('cars.connectText')}
      initialFocusRef={inputRef}
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            {t('cars.cancel')}
          </Button>
          <Button type="submit" form={formId} busy={busy}>
            {t('cars.connect')}
          </Button>
        </>
      }
    >
      <form id={formId} noValidate onSubmit={onSubmit} className="space-y-3">
        <label htmlFor={inputId} className="block text-sm font-semibold">
          {t('cars.codeLabel')}
        </label>
        <input
          ref={inputRef}
          id={inputId}
          name="code"
          value={code}
          onChange={(event) => {
            setCode(event.target.value.toUpperCase());
            if (error) clearError();
          }}
          autoCapitalize="characters"
          autoComplete="off"
          autoCorrect="off"
          spellCheck={false}
          maxLength={16}
          placeholder="ABC234"
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? errorId : undefined}
          className={cx(
            inputClasses,
            'h-14 text-center font-mono text-2xl font-bold tracking-[0.35em] uppercase',
          )}
        />
        {error && (
          <div id={errorId}>
            <Alert tone="error">{error}</Alert>
          </div>
        )}
      </form>
    </Modal>
  );
}
