/** The building blocks of the auth screens: framed card, labelled fields, password toggle, terms box. */

import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '@telerace/protocol';
import { type InputHTMLAttributes, type ReactNode, type Ref, useId, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { Button } from '../../components/ui/Button';
import { LineIcon } from '../../components/ui/Icon';
import { Panel } from '../../components/ui/Panel';
import { cx } from '../../lib/cx';
import { useHydrated } from '../../lib/use-hydrated';

/** The centred card every auth screen sits in. */
export function AuthFrame({
  eyebrow,
  title,
  intro,
  children,
}: {
  eyebrow?: ReactNode;
  title: ReactNode;
  intro?: ReactNode;
  children?: ReactNode;
}) {
  return (
    <div className="mx-auto w-full max-w-md">
      <Panel level={1} eyebrow={eyebrow} title={title}>
        <div className="relative">
          <div
            className="checkered pointer-events-none absolute -top-16 right-0 h-20 w-32 opacity-50 [mask-image:linear-gradient(to_left,black,transparent)]"
            aria-hidden="true"
          />
          {intro && <p className="relative mb-5 text-sm leading-relaxed text-muted">{intro}</p>}
          <div className="relative">{children}</div>
        </div>
      </Panel>
    </div>
  );
}

export const inputClasses = cx(
  'block h-11 w-full rounded-lg border border-line bg-bg px-3 text-base text-fg placeholder:text-muted/70',
  'transition-colors hover:border-muted focus-visible:border-ring focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-ring',
  'aria-invalid:border-danger disabled:opacity-60',
);

export interface TextFieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'className'> {
  ref?: Ref<HTMLInputElement>;
  label: ReactNode;
  hint?: ReactNode;
  error?: string;
  /** Shown right of the label (a character counter). */
  aside?: ReactNode;
  /** A control inside the input's right edge (the show-password button). */
  trailing?: ReactNode;
}

/** What a field's control needs to be tied to its label, hint and error. */
export interface FieldControlProps {
  id: string;
  'aria-describedby'?: string;
  'aria-invalid'?: true;
}

export interface FieldFrameProps {
  id?: string;
  label: ReactNode;
  hint?: ReactNode;
  error?: string | null;
  aside?: ReactNode;
  children: (control: FieldControlProps) => ReactNode;
}

/** Label (with an optional aside), the control, a hint and an error, tied together by ids. */
export function FieldFrame({ id, label, hint, error, aside, children }: FieldFrameProps) {
  const autoId = useId();
  const controlId = id ?? autoId;
  const hintId = `${controlId}-hint`;
  const errorId = `${controlId}-error`;
  const describedBy = [hint ? hintId : null, error ? errorId : null].filter(Boolean).join(' ') || undefined;
  return (
    <div>
      <div className="mb-1.5 flex items-baseline justify-between gap-3">
        <label htmlFor={controlId} className="text-sm font-semibold text-fg">
          {label}
        </label>
        {aside}
      </div>
      {children({ id: controlId, 'aria-describedby': describedBy, 'aria-invalid': error ? true : undefined })}
      {hint && (
        <p id={hintId} className="mt-1.5 text-xs text-muted">
          {hint}
        </p>
      )}
      {error && (
        <p id={errorId} className="mt-1.5 text-sm font-medium text-danger">
          {error}
        </p>
      )}
    </div>
  );
}

/**
 * A text field. In a page the server drew it takes no typing until the page is live: what was typed
 * before would show in the field but not reach the form (the app's state), and be sent empty.
 */
export function TextField({ label, hint, error, aside, trailing, id, readOnly, ...input }: TextFieldProps) {
  const live = useHydrated();
  return (
    <FieldFrame id={id} label={label} hint={hint} error={error} aside={aside}>
      {(control) => (
        <div className="relative">
          <input
            className={cx(inputClasses, trailing ? 'pr-12' : undefined)}
            readOnly={readOnly || !live}
            {...control}
            {...input}
          />
          {trailing && <div className="absolute inset-y-0 right-1 flex items-center">{trailing}</div>}
        </div>
      )}
    </FieldFrame>
  );
}

function EyeIcon({ crossed }: { crossed: boolean }) {
  return (
    <LineIcon>
      <path
        strokeLinecap="round"
        strokeLinejoin="round"
        d="M2 12s3.6-7 10-7 10 7 10 7-3.6 7-10 7S2 12 2 12z"
      />
      <circle cx="12" cy="12" r="3" />
      {crossed && <path strokeLinecap="round" d="M4 4l16 16" />}
    </LineIcon>
  );
}

/** An e-mail input with the attributes browsers and phone keyboards need. */
export function EmailField(
  props: Omit<TextFieldProps, 'type' | 'autoComplete' | 'inputMode' | 'spellCheck'>,
) {
  return <TextField type="email" autoComplete="email" inputMode="email" spellCheck={false} {...props} />;
}

/** The required account e-mail of the login, sign-up and forgot-password forms. */
export function AccountEmailField({
  onChange,
  ...props
}: Omit<TextFieldProps, 'label' | 'name' | 'required' | 'onChange'> & { onChange: (value: string) => void }) {
  const { t } = useTranslation();
  return (
    <EmailField
      label={t('auth.email')}
      name="email"
      required
      onChange={(event) => onChange(event.target.value)}
      {...props}
    />
  );
}

/** A password input that hands its text to `onChange`, for the fields below. */
type PasswordValueProps = Omit<TextFieldProps, 'type' | 'trailing' | 'required' | 'onChange'> & {
  onChange: (value: string) => void;
};

function PasswordValueField({ onChange, ...props }: PasswordValueProps) {
  return <PasswordField required onChange={(event) => onChange(event.target.value)} {...props} />;
}

/** A password being chosen: the browser may suggest one, and the limits are shown as a hint. */
export function NewPasswordField(props: Omit<PasswordValueProps, 'autoComplete' | 'hint'>) {
  const { t } = useTranslation();
  return (
    <PasswordValueField
      name="newPassword"
      autoComplete="new-password"
      minLength={PASSWORD_MIN_LENGTH}
      maxLength={PASSWORD_MAX_LENGTH}
      hint={t('signup.passwordHint', { min: PASSWORD_MIN_LENGTH, max: PASSWORD_MAX_LENGTH })}
      {...props}
    />
  );
}

/** The new password typed again, so that a typo is caught before it is sent. */
export function ConfirmPasswordField(props: Omit<PasswordValueProps, 'name' | 'autoComplete'>) {
  return <PasswordValueField name="confirmPassword" autoComplete="new-password" {...props} />;
}

/** The member's current password, asked before an account change; the password manager fills it. */
export function CurrentPasswordField(props: Omit<PasswordValueProps, 'name' | 'autoComplete'>) {
  return <PasswordValueField name="currentPassword" autoComplete="current-password" {...props} />;
}

/**
 * An auth screen's full-width submit button; its label says when the request is under way. In a
 * page the server drew it is disabled until the page is live: a form sent before that would be the
 * browser's own (a GET with the password in the address), never the app's.
 */
export function SubmitButton({
  busy,
  label,
  busyLabel,
}: {
  busy: boolean;
  label: string;
  busyLabel: string;
}) {
  const live = useHydrated();
  return (
    <Button type="submit" size="lg" className="w-full" busy={busy} disabled={!live}>
      {busy ? busyLabel : label}
    </Button>
  );
}

/** The way back to the login screen under the account-recovery forms. */
export function BackToLogin() {
  const { t } = useTranslation();
  return (
    <p className="mt-6 text-center text-sm">
      <Link to="/login" className="font-semibold">
        {t('auth.backToLogin')}
      </Link>
    </p>
  );
}

/** A password input with a show/hide toggle. */
export function PasswordField(props: Omit<TextFieldProps, 'type' | 'trailing'>) {
  const { t } = useTranslation();
  const [visible, setVisible] = useState(false);
  return (
    <TextField
      {...props}
      type={visible ? 'text' : 'password'}
      trailing={
        <button
          type="button"
          className="inline-flex size-9 items-center justify-center rounded-md text-muted hover:bg-surface-2 hover:text-fg focus-visible:outline-2 focus-visible:outline-ring"
          aria-label={visible ? t('auth.hidePassword') : t('auth.showPassword')}
          aria-pressed={visible}
          onClick={() => setVisible((shown) => !shown)}
        >
          <EyeIcon crossed={visible} />
        </button>
      }
    />
  );
}

function NewTabLink({ to, children }: { to: string; children?: ReactNode }) {
  const { t } = useTranslation();
  return (
    <a href={to} target="_blank" rel="noopener noreferrer" className="font-semibold">
      {children}
      <span className="sr-only"> {t('auth.opensInNewTab')}</span>
    </a>
  );
}

/**
 * The required "I agree to the Terms and the Privacy Policy" box; both links open in a new tab.
 * Its error message is shown by the form's alert; `invalid` marks the box.
 */
export function TermsCheckbox({
  checked,
  onChange,
  invalid,
  disabled,
}: {
  checked: boolean;
  onChange: (checked: boolean) => void;
  invalid?: boolean;
  disabled?: boolean;
}) {
  const id = useId();
  // Like the text fields: ticked only once the page is live.
  const live = useHydrated();
  return (
    <div
      className={cx(
        'flex items-start gap-3 rounded-lg border p-3 transition-colors',
        invalid ? 'border-danger/70 bg-danger/5' : 'border-line bg-surface-2/40',
      )}
    >
      <input
        id={id}
        name="terms"
        type="checkbox"
        className="mt-0.5 size-5 shrink-0 accent-(--tr-accent)"
        checked={checked}
        disabled={disabled || !live}
        required
        aria-invalid={invalid || undefined}
        onChange={(event) => onChange(event.target.checked)}
      />
      <label htmlFor={id} className="text-sm leading-relaxed text-fg">
        <Trans
          i18nKey="signup.terms"
          components={{
            terms: <NewTabLink to="/terms-of-service" />,
            privacy: <NewTabLink to="/privacy-policy" />,
          }}
        />
      </label>
    </div>
  );
}

/** A thin rule with a word in the middle ("or"). */
export function Divider({ children }: { children: ReactNode }) {
  return (
    <div className="my-6 flex items-center gap-3 text-xs font-bold tracking-[0.2em] text-muted uppercase">
      <span className="h-px flex-1 bg-line" aria-hidden="true" />
      {children}
      <span className="h-px flex-1 bg-line" aria-hidden="true" />
    </div>
  );
}
