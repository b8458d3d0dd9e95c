/** Avatar URL and bio (spec §5): the URL must be http(s), the bio at most BIO_MAX_LENGTH characters. */
import { BIO_MAX_LENGTH, type User } from '@telerace/protocol';
import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '../../components/ui/Button';
import { cx } from '../../lib/cx';
import { apiErrorText } from '../auth/error-text';
import { TextField } from '../auth/form-fields';
import { TextAreaField } from './fields';
import { type FormStatus, FormStatusAlert } from './form-status';
import { updateProfile } from './profile-api';

export function isAvatarUrl(value: string): boolean {
  return /^https?:\/\//i.test(value) && URL.canParse(value);
}

export function AboutForm({ user, onSaved }: { user: User; onSaved: (user: User) => void }) {
  const { t, i18n } = useTranslation();
  const [avatarUrl, setAvatarUrl] = useState(user.avatar_url ?? '');
  const [bio, setBio] = useState(user.bio);
  const [urlError, setUrlError] = useState<string | null>(null);
  const [status, setStatus] = useState<FormStatus>(null);
  const [busy, setBusy] = useState(false);
  const bioTooLong = bio.length > BIO_MAX_LENGTH;

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setStatus(null);
    const url = avatarUrl.trim();
    const urlProblem = url !== '' && !isAvatarUrl(url) ? t('profile.about.avatarUrlInvalid') : null;
    setUrlError(urlProblem);
    if (urlProblem || bioTooLong) return;
    setBusy(true);
    try {
      const saved = await updateProfile({ bio, avatar_url: url === '' ? null : url });
      onSaved(saved);
      setStatus({ tone: 'success', text: t('profile.about.saved') });
    } catch (error) {
      setStatus({ tone: 'error', text: apiErrorText(t, i18n, error, 'profile.about.failed') });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form noValidate onSubmit={onSubmit} className="space-y-4" aria-label={t('profile.about.title')}>
      <TextField
        label={t('profile.about.avatarUrl')}
        name="avatar_url"
        type="url"
        inputMode="url"
        placeholder="https://"
        value={avatarUrl}
        onChange={(event) => setAvatarUrl(event.target.value)}
        hint={t('profile.about.avatarUrlHint')}
        error={urlError ?? undefined}
      />
      <TextAreaField
        label={t('profile.about.bio')}
        name="bio"
        value={bio}
        onChange={(event) => setBio(event.target.value)}
        error={bioTooLong ? t('profile.about.bioTooLong', { max: BIO_MAX_LENGTH }) : null}
        aside={
          <span
            data-testid="bio-counter"
            className={cx('text-xs tabular-nums', bioTooLong ? 'font-semibold text-danger' : 'text-muted')}
          >
            {t('profile.about.bioCount', { length: bio.length, max: BIO_MAX_LENGTH })}
          </span>
        }
      />
      <FormStatusAlert status={status} />
      <Button type="submit" busy={busy} disabled={bioTooLong}>
        {t('profile.about.save')}
      </Button>
    </form>
  );
}
