/**
 * What every auth screen's form does on submit: focus the first field in error, send its one
 * write (a mutation) while the button shows it is busy, and tell a failure in the form's alert.
 * Also the terms box's state shared by sign-up and the completion of a social sign-up.
 */
import { useMutation } from '@tanstack/react-query';
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

/** A reason not to send, found before sending (the bot check): shown as it is. */
class Refused extends Error {}

export interface AuthRequestOptions {
  /**
   * Checked while the button is busy (it may wait, e.g. for the bot check's config); a text it
   * gives is shown instead of sending.
   */
  refusal?: () => Promise<string | null>;
  /** Told of a failed request (not of a refusal): the bot check starts again. */
  onFailure?: (error: unknown) => void;
}

/**
 * An auth screen's one write, as a mutation: the button is busy while it runs and stays busy on
 * success (the screen moves on: another route or a confirmation), and a failure is told in the
 * form's alert, where the screen's own checks (`setFormError`) write too. One send at a time.
 */
export function useAuthRequest<Input>(
  fallbackKey: TranslationKey,
  request: (input: Input) => Promise<unknown>,
  { refusal, onFailure }: AuthRequestOptions = {},
) {
  const { t, i18n } = useTranslation();
  const [checkError, setCheckError] = useState<string | null>(null);
  const sending = useRef(false);
  const mutation = useMutation({
    mutationFn: async (input: Input) => {
      const refused = await refusal?.();
      if (refused) throw new Refused(refused);
      return request(input);
    },
    onError: (error) => {
      if (!(error instanceof Refused)) onFailure?.(error);
    },
    onSettled: () => {
      sending.current = false;
    },
  });
  const { error, reset, mutate } = mutation;

  const formError =
    checkError ??
    (error instanceof Refused ? error.message : error ? apiErrorText(t, i18n, error, fallbackKey) : null);

  return {
    busy: mutation.isPending || mutation.isSuccess,
    formError,
    /** Shows the screen's own reason (null: clears the alert). */
    setFormError(text: string | null) {
      reset();
      setCheckError(text);
    },
    send(input: Input) {
      if (sending.current) return;
      sending.current = true;
      setCheckError(null);
      mutate(input);
    },
  };
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
