/** The theme preference (spec §2 Settings): saved to the account, applied at once on success. */
import { THEMES, type Theme, UpdateThemeRequest, UserResponse } from '@telerace/protocol';
import { type FormEvent, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '../../components/ui/Button';
import { authFetch } from '../../lib/auth-client';
import { retryUnreached } from '../../lib/write-retry';
import { useAuth } from '../auth/auth-context';
import { inputClasses } from '../auth/form-fields';
import { FormStatusAlert } from '../profile/form-status';
import { useFormSave } from '../profile/use-form-save';
import { isTheme, setTheme, useTheme } from '../theme/theme';

export async function saveTheme(theme: Theme) {
  const { user } = await authFetch(
    '/me/theme',
    { method: 'PATCH', json: UpdateThemeRequest.parse({ preferred_theme: theme }) },
    UserResponse,
  );
  return user;
}

export function ThemeSettings() {
  const { t } = useTranslation();
  const { user, setUser } = useAuth();
  const current = useTheme();
  const [choice, setChoice] = useState<Theme>(user?.preferred_theme ?? current);
  const { status, busy, save } = useFormSave('settings.failed', {
    write: saveTheme,
    saved: (saved, theme) => {
      setTheme(theme);
      setUser(saved);
      return t('settings.saved');
    },
    retry: retryUnreached,
  });
  const selectId = useId();
  const hintId = useId();

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    save(choice);
  };

  return (
    <form onSubmit={onSubmit} className="max-w-sm space-y-4">
      <div className="space-y-1.5">
        <label htmlFor={selectId} className="text-sm font-semibold">
          {t('settings.theme')}
        </label>
        <select
          id={selectId}
          aria-describedby={hintId}
          value={choice}
          onChange={(event) => {
            if (isTheme(event.target.value)) setChoice(event.target.value);
          }}
          className={inputClasses}
        >
          {THEMES.map((theme) => (
            <option key={theme} value={theme}>
              {t(`settings.${theme}`)}
            </option>
          ))}
        </select>
        <p id={hintId} className="text-xs text-muted">
          {t('settings.themeHint')}
        </p>
      </div>
      <FormStatusAlert status={status} />
      <Button type="submit" busy={busy}>
        {t('settings.save')}
      </Button>
    </form>
  );
}
