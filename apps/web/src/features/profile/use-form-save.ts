/**
 * An account form's one write, as a mutation: busy while it runs, and the outcome line under the
 * form, cleared when the member submits again, then the success message or the failure's text.
 */
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import type { TranslationKey } from '../../i18n';
import { apiErrorText } from '../auth/error-text';
import type { FormStatus } from './form-status';

export interface FormSave<Input, Result> {
  /** The write. */
  write: (input: Input) => Promise<Result>;
  /** Applies what the server answered (the session's user, the fields) and gives the success message. */
  saved: (result: Result, input: Input) => string;
  /** Only for a write that may be sent twice (see `retryUnreached`). */
  retry?: (failureCount: number, error: unknown) => boolean;
  /** After either outcome: what a failure may have changed too (queries to invalidate). */
  settled?: () => void;
}

export function useFormSave<Input, Result>(
  fallbackKey: TranslationKey,
  { write, saved, retry, settled }: FormSave<Input, Result>,
) {
  const { t, i18n } = useTranslation();
  const mutation = useMutation({
    mutationFn: async (input: Input) => saved(await write(input), input),
    retry: retry ?? false,
    onSettled: settled,
  });
  const status: FormStatus = mutation.isSuccess
    ? { tone: 'success', text: mutation.data }
    : mutation.isError
      ? { tone: 'error', text: apiErrorText(t, i18n, mutation.error, fallbackKey) }
      : null;

  return { status, busy: mutation.isPending, clearStatus: mutation.reset, save: mutation.mutate };
}
