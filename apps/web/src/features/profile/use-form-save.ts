/**
 * The busy flag and the outcome line of an account form that saves one change: cleared when the
 * member submits again, then the success message or the failure's text.
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { TranslationKey } from '../../i18n';
import { apiErrorText } from '../auth/error-text';
import type { FormStatus } from './form-status';

export function useFormSave(fallbackKey: TranslationKey) {
  const { t, i18n } = useTranslation();
  const [status, setStatus] = useState<FormStatus>(null);
  const [busy, setBusy] = useState(false);

  /** Runs `request`, which resolves with the success message to show. */
  async function save(request: () => Promise<string>) {
    setBusy(true);
    try {
      setStatus({ tone: 'success', text: await request() });
    } catch (error) {
      setStatus({ tone: 'error', text: apiErrorText(t, i18n, error, fallbackKey) });
    } finally {
      setBusy(false);
    }
  }

  return { status, busy, clearStatus: () => setStatus(null), save };
}
