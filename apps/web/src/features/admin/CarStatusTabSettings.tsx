/** The driving session duration (spec §3 "Settings", §7 GET/PATCH /admin/settings): 1–240 minutes. */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { AdminSettingsPatch } from '@telerace/protocol';
import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Alert } from '../../components/ui/Alert';
import { Button } from '../../components/ui/Button';
import { Spinner } from '../../components/ui/Spinner';
import { apiErrorText } from '../auth/error-text';
import { TextField } from '../auth/form-fields';
import { ADMIN_SETTINGS_KEY, fetchSettings, saveSettings } from '../cars/admin-cars-api';

const LIMITS = { min: 1, max: 240 } as const;

export function SessionDurationSettings() {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  const query = useQuery({ queryKey: ADMIN_SETTINGS_KEY, queryFn: fetchSettings });
  const [text, setText] = useState<string | null>(null);
  const [fieldError, setFieldError] = useState<string | null>(null);
  const [result, setResult] = useState<{ tone: 'success' | 'error'; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const value = text ?? (query.data ? String(query.data.car_session_duration_minutes) : '');

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    // Only this setting is sent: the race settings have their own panel (a partial update).
    const parsed = AdminSettingsPatch.safeParse({ car_session_duration_minutes: Number(value) });
    if (value.trim() === '' || !parsed.success) {
      setFieldError(t('carStatus.settings.invalid', LIMITS));
      return;
    }
    setFieldError(null);
    setBusy(true);
    setResult(null);
    try {
      const saved = await saveSettings(parsed.data);
      queryClient.setQueryData(ADMIN_SETTINGS_KEY, saved);
      setText(null);
      setResult({ tone: 'success', text: t('carStatus.settings.saved') });
    } catch (failure) {
      setResult({ tone: 'error', text: apiErrorText(t, i18n, failure, 'carStatus.settings.failed') });
    } finally {
      setBusy(false);
    }
  };

  return (
    <section
      className="rounded-xl border border-line bg-surface-2/40 p-4"
      aria-labelledby="session-duration-title"
    >
      <h3 id="session-duration-title" className="font-display text-lg font-black italic">
        {t('carStatus.settings.title')}
      </h3>
      <p className="mt-1 text-sm text-muted">{t('carStatus.settings.text')}</p>
      {query.isPending ? (
        <div className="py-3">
          <Spinner className="text-accent" />
        </div>
      ) : query.isError ? (
        <Alert tone="error" className="mt-3">
          {t('carStatus.settings.loadFailed')}
        </Alert>
      ) : (
        <form noValidate onSubmit={onSubmit} className="mt-3 flex flex-wrap items-end gap-3">
          <div className="w-44">
            <TextField
              label={t('carStatus.settings.minutes')}
              name="car_session_duration_minutes"
              type="number"
              inputMode="numeric"
              min={LIMITS.min}
              max={LIMITS.max}
              step={1}
              value={value}
              onChange={(event) => {
                setText(event.target.value);
                setResult(null);
              }}
              error={fieldError ?? undefined}
            />
          </div>
          <Button type="submit" busy={busy} className="mb-px">
            {t('carStatus.settings.save')}
          </Button>
        </form>
      )}
      {result && (
        <Alert tone={result.tone} className="mt-3">
          {result.text}
        </Alert>
      )}
    </section>
  );
}
