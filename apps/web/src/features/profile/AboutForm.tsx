/** Avatar URL and bio (spec §5): the URL must be http(s), the bio at most BIO_MAX_LENGTH characters. */
import { BIO_MAX_LENGTH, type User } from '@telerace/protocol';
import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '../../components/ui/Button';
import { cx } from '../../lib/cx';
import { retryUnreached } from '../../lib/write-retry';
import { TextField } from '../auth/form-fields';
import { TextAreaField } from './fields';
import { FormStatusAlert } from './form-status';
import { updateProfile } from './profile-api';
import { useFormSave } from './use-form-save';

export function isAvatarUrl(value: string): boolean {
  return /^https?:\/\//i.test(value) && URL.canParse(value);
}

export function AboutForm({ user, onSaved }: { user: User; onSaved: (user: User) => void }) {
  const { t } = useTranslation();
  const [avatarUrl, setAvatarUrl] = useState(user.avatar_url ?? '');
  const [bio, setBio] = useState(user.bio);
  const [urlError, setUrlError] = useState<string | null>(null);
  const { status, busy, clearStatus, save } = useFormSave('profile.about.failed', {
    write: updateProfile,
    saved: (saved) => {
      onSaved(saved);
      return t('profile.about.saved');
    },
    retry: retryUnreached,
  });
  const bioTooLong = bio.length > BIO_MAX_LENGTH;

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    clearStatus();
    const url = avatarUrl.trim();
    const urlProblem = url !== '' && !isAvatarUrl(url) ? t('profile.about.avatarUrlInvalid') : null;
    setUrlError(urlProblem);
    if (urlProblem || bioTooLong) return;
    save({ bio, avatar_url: url === '' ? null : url });
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
