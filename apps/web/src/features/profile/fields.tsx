/**
 * Form controls of the account screens that the auth screens' field set lacks: a labelled text
 * area, and the compact class list of the admin tables' selects. Text inputs reuse the auth
 * screens' `TextField` and `PasswordField` so every form in the app looks the same.
 */
import type { ReactNode, TextareaHTMLAttributes } from 'react';
import { cx } from '../../lib/cx';
import { FieldFrame } from '../auth/form-fields';

const controlBase =
  'block w-full rounded-lg border border-line bg-bg px-3 text-fg placeholder:text-muted/70 transition-colors hover:border-muted ' +
  'focus-visible:border-ring focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-ring ' +
  'aria-invalid:border-danger disabled:opacity-60';

/** A small select for toolbars (rows per page). */
export const compactSelectClasses = cx(controlBase, 'h-9 w-auto text-sm');

export interface TextAreaFieldProps
  extends Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, 'id' | 'className'> {
  label: ReactNode;
  hint?: ReactNode;
  error?: string | null;
  /** Shown right of the label (a character counter). */
  aside?: ReactNode;
}

export function TextAreaField({ label, hint, error, aside, ...textarea }: TextAreaFieldProps) {
  return (
    <FieldFrame label={label} hint={hint} error={error} aside={aside}>
      {(control) => (
        <textarea
          className={cx(controlBase, 'min-h-28 resize-y py-2 text-base')}
          {...control}
          {...textarea}
        />
      )}
    </FieldFrame>
  );
}
