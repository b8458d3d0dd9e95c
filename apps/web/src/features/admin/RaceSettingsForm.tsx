/**
 * The race settings of the Race Control tab (issue 12): countdown 3–10 s, race length 1–30 min,
 * minimum lap time 1–60 s (RACE_SETTINGS_LIMITS), checked here first, saved with a partial PATCH.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type AdminSettings, RACE_SETTINGS_LIMITS } from '@telerace/protocol';
import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Alert } from '../../components/ui/Alert';
import { Button } from '../../components/ui/Button';
import { Spinner } from '../../components/ui/Spinner';
import { apiErrorText } from '../auth/error-text';
import { TextField } from '../auth/form-fields';
import { ADMIN_SETTINGS_KEY, fetchSettings } from '../cars/admin-cars-api';
import { saveRaceSettings } from './race-api';

type RaceField = 'race_countdown_seconds' | 'race_length_minutes' | 'min_lap_time_seconds';

const FIELDS: { name: RaceField; label: string; limits: { min: number; max: number } }[] = [
  {
    name: 'race_countdown_seconds',
    label: 'raceControl.settings.countdown',
    limits: RACE_SETTINGS_LIMITS.countdownSeconds,
  },
  {
    name: 'race_length_minutes',
    label: 'raceControl.settings.length',
    limits: RACE_SETTINGS_LIMITS.raceLengthMinutes,
  },
  {
    name: 'min_lap_time_seconds',
    label: 'raceControl.settings.minLap',
    limits: RACE_SETTINGS_LIMITS.minLapSeconds,
  },
];

/** The whole number typed, or null when it is not one within the limits. */
export function parseSetting(text: string, limits: { min: number; max: number }): number | null {
  if (!/^\s*\d+\s*$/.test(text)) return null;
  const value = Number(text);
  return value >= limits.min && value <= limits.max ? value : null;
}

export function RaceSettingsForm() {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  const query = useQuery({ queryKey: ADMIN_SETTINGS_KEY, queryFn: fetchSettings });
  const [texts, setTexts] = useState<Partial<Record<RaceField, string>>>({});
  const [errors, setErrors] = useState<Partial<Record<RaceField, string>>>({});
  const [result, setResult] = useState<{ tone: 'success' | 'error'; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const shownText = (name: RaceField, settings: AdminSettings | undefined) =>
    texts[name] ?? (settings ? String(settings[name]) : '');

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    const patch: Partial<Record<RaceField, number>> = {};
    const invalid: Partial<Record<RaceField, string>> = {};
    for (const field of FIELDS) {
      const value = parseSetting(shownText(field.name, query.data), field.limits);
      if (value === null) invalid[field.name] = t('raceControl.settings.invalid', field.limits);
      else patch[field.name] = value;
    }
    setErrors(invalid);
    setResult(null);
    if (Object.keys(invalid).length > 0) return;
    setBusy(true);
    try {
      const saved = await saveRaceSettings(patch);
      queryClient.setQueryData(ADMIN_SETTINGS_KEY, saved);
      setTexts({});
      setResult({ tone: 'success', text: t('raceControl.settings.saved') });
    } catch (failure) {
      setResult({ tone: 'error', text: apiErrorText(t, i18n, failure, 'raceControl.settings.failed') });
    } finally {
      setBusy(false);
    }
  };

  return (
    <section
      className="rounded-xl border border-line bg-surface-2/40 p-4"
      aria-labelledby="race-settings-title"
    >
      <h3 id="race-settings-title" className="font-display text-lg font-black italic">
        {t('raceControl.settings.title')}
      </h3>
      <p className="mt-1 text-sm text-muted">{t('raceControl.settings.text')}</p>
      {query.isPending ? (
        <div className="py-3">
          <Spinner className="text-accent" />
        </div>
      ) : query.isError ? (
        <Alert tone="error" className="mt-3">
          {t('raceControl.settings.loadFailed')}
        </Alert>
      ) : (
        <form noValidate onSubmit={onSubmit} className="mt-3 flex flex-wrap items-end gap-3">
          {FIELDS.map((field) => (
            <div key={field.name} className="w-44">
              <TextField
                label={t(field.label)}
                name={field.name}
                type="number"
                inputMode="numeric"
                min={field.limits.min}
                max={field.limits.max}
                step={1}
                value={shownText(field.name, query.data)}
                onChange={(event) => {
                  setTexts((current) => ({ ...current, [field.name]: event.target.value }));
                  setResult(null);
                }}
                error={errors[field.name]}
              />
            </div>
          ))}
          <Button type="submit" busy={busy} className="mb-px" data-testid="race-settings-save">
            {t('raceControl.settings.save')}
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
