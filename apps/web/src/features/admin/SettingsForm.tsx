/**
 * A panel of admin run-time settings (spec §7 GET/PATCH /admin/settings): whole-number fields with
 * their bounds, checked here first, then saved together as a partial PATCH of only this panel's
 * settings (the other panels' settings are left as they are). Used for the session duration (Car
 * Status tab) and the race settings (Race Control tab).
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { AdminSettings } from '@telerace/protocol';
import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Alert } from '../../components/ui/Alert';
import { Button } from '../../components/ui/Button';
import { Spinner } from '../../components/ui/Spinner';
import type { TranslationKey } from '../../i18n';
import { retryUnreached } from '../../lib/write-retry';
import { TextField } from '../auth/form-fields';
import { ADMIN_SETTINGS_KEY, fetchSettings, saveSettings } from '../cars/admin-cars-api';
import { FormStatusAlert } from '../profile/form-status';
import { useFormSave } from '../profile/use-form-save';

/** The whole-number settings (the others are the Integrations tab's switches). */
export type SettingName = {
  [K in keyof AdminSettings]: AdminSettings[K] extends number ? K : never;
}[keyof AdminSettings];

export interface SettingField {
  name: SettingName;
  /** i18n key of the field's label. */
  label: TranslationKey;
  limits: { min: number; max: number };
}

/** The whole number typed, or null when it is not one within the limits. */
function parseSetting(text: string, limits: { min: number; max: number }): number | null {
  if (!/^\s*\d+\s*$/.test(text)) return null;
  const value = Number(text);
  return value >= limits.min && value <= limits.max ? value : null;
}

export interface SettingsFormProps {
  /** The heading's element id, which names the panel. */
  titleId: string;
  /** i18n prefix of the panel's texts: title, text, invalid ({{min}}, {{max}}), save, saved, failed, loadFailed. */
  texts: 'carStatus.settings' | 'raceControl.settings';
  fields: readonly SettingField[];
  saveTestId?: string;
}

export function SettingsForm({ titleId, texts, fields, saveTestId }: SettingsFormProps) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const query = useQuery({ queryKey: ADMIN_SETTINGS_KEY, queryFn: fetchSettings });
  // What the admin typed, by field; a field not typed in shows the saved value.
  const [typed, setTyped] = useState<Partial<Record<SettingName, string>>>({});
  const [errors, setErrors] = useState<Partial<Record<SettingName, string>>>({});
  const {
    status: result,
    busy,
    clearStatus,
    save,
  } = useFormSave(`${texts}.failed`, {
    write: saveSettings,
    saved: (saved) => {
      queryClient.setQueryData(ADMIN_SETTINGS_KEY, saved);
      setTyped({});
      return t(`${texts}.saved`);
    },
    retry: retryUnreached,
  });
  const shownText = (name: SettingName) => typed[name] ?? (query.data ? String(query.data[name]) : '');

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    const patch: Partial<Record<SettingName, number>> = {};
    const invalid: Partial<Record<SettingName, string>> = {};
    for (const field of fields) {
      const value = parseSetting(shownText(field.name), field.limits);
      if (value === null) invalid[field.name] = t(`${texts}.invalid`, field.limits);
      else patch[field.name] = value;
    }
    setErrors(invalid);
    clearStatus();
    if (Object.keys(invalid).length > 0) return;
    save(patch);
  };

  return (
    <section className="rounded-xl border border-line bg-surface-2/40 p-4" aria-labelledby={titleId}>
      <h3 id={titleId} className="font-display text-lg font-black italic">
        {t(`${texts}.title`)}
      </h3>
      <p className="mt-1 text-sm text-muted">{t(`${texts}.text`)}</p>
      {query.isPending ? (
        <div className="py-3">
          <Spinner className="text-accent" />
        </div>
      ) : query.isError ? (
        <Alert tone="error" className="mt-3">
          {t(`${texts}.loadFailed`)}
        </Alert>
      ) : (
        <form noValidate onSubmit={onSubmit} className="mt-3 flex flex-wrap items-end gap-3">
          {fields.map((field) => (
            <div key={field.name} className="w-44">
              <TextField
                label={t(field.label)}
                name={field.name}
                type="number"
                inputMode="numeric"
                min={field.limits.min}
                max={field.limits.max}
                step={1}
                value={shownText(field.name)}
                onChange={(event) => {
                  setTyped((current) => ({ ...current, [field.name]: event.target.value }));
                  clearStatus();
                }}
                error={errors[field.name]}
              />
            </div>
          ))}
          <Button type="submit" busy={busy} className="mb-px" data-testid={saveTestId}>
            {t(`${texts}.save`)}
          </Button>
        </form>
      )}
      <FormStatusAlert status={result} className="mt-3" />
    </section>
  );
}
