/**
 * The control-code dialog (spec §2 "Car selection", §5): the code is upper-cased as typed; an
 * empty code is refused before any call ('A control code is required.'); on success the control
 * token is kept for this tab and the driver goes to the car's control page.
 */
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
import { connectToCar, storeControlToken, storeVideoPin } from './cars-api';

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
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    const trimmed = code.trim();
    if (trimmed === '') {
      setError(t('errors.controlCodeRequired'));
      inputRef.current?.focus();
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const { car: connected, controlToken } = await connectToCar(car.id, trimmed);
      storeControlToken(car.id, controlToken);
      storeVideoPin(car.id, connected.video?.pin);
      navigate(`/control/${car.id}/${connected.stream_id}`);
    } catch (failure) {
      setError(apiErrorText(t, i18n, failure, 'cars.connectFailed'));
      setBusy(false);
      inputRef.current?.focus();
    }
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
            if (error) setError(null);
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
