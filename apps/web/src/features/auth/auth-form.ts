/**
 * What every auth screen's form does on submit: focus the first field in error, send one request
 * while the button shows it is busy, and tell a failure in the form's alert. Also the terms box's
 * state shared by sign-up and the completion of a social sign-up.
 */
import { type RefObject, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { TranslationKey } from '../../i18n';
import { apiErrorText } from './error-text';

/** Focuses the first of `fields` (in screen order) that has an error; true when one had. */
export function focusFirstInvalid<Field extends string>(
  form: RefObject<HTMLFormElement | null>,
  fields: readonly Field[],
  errors: Partial<Record<Field, string>>,
): boolean {
  const firstInvalid = fields.find((field) => errors[field]);
  if (!firstInvalid) return false;
  form.current?.querySelector<HTMLInputElement>(`[name="${firstInvalid}"]`)?.focus();
  return true;
}

/**
 * The busy flag and the error alert around an auth screen's request. On success the screen moves
 * on (another route or a confirmation), so the button stays busy until it is gone.
 */
export function useAuthRequest(fallbackKey: TranslationKey) {
  const { t, i18n } = useTranslation();
  const [busy, setBusy] = useState(false);
  const [formError, setFormError] = useState<string | null>(null);
  const sending = useRef(false);

  /**
   * Sends `request` unless `refusal` (checked while the button is busy: it may wait, e.g. for the
   * bot check's config) gives a reason not to, which the alert then shows. One send at a time.
   */
  async function send(
    request: () => Promise<unknown>,
    onFailure?: (error: unknown) => void,
    refusal?: () => Promise<string | null>,
  ) {
    if (sending.current) return;
    sending.current = true;
    setFormError(null);
    setBusy(true);
    try {
      const refused = await refusal?.();
      if (refused) {
        setFormError(refused);
        setBusy(false);
        return;
      }
      await request();
    } catch (error) {
      setFormError(apiErrorText(t, i18n, error, fallbackKey));
      onFailure?.(error);
      setBusy(false);
    } finally {
      sending.current = false;
    }
  }

  return { busy, formError, setFormError, send };
}

/** The required terms box: `accept()` marks it when it is not ticked, and ticking it clears the mark. */
export function useTermsAgreement() {
  const [agreed, setAgreed] = useState(false);
  const [invalid, setInvalid] = useState(false);
  return {
    agreed,
    /** True when ticked; otherwise marks the box invalid. */
    accept(): boolean {
      setInvalid(!agreed);
      return agreed;
    },
    checkbox: {
      checked: agreed,
      invalid,
      onChange(checked: boolean) {
        setAgreed(checked);
        if (checked) setInvalid(false);
      },
    },
  };
}
