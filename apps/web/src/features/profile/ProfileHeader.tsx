/** The top of the profile: avatar, display name with its `#id` tag apart, and email. */
import type { User } from '@telerace/protocol';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { displayName, initial, usernameSuffix } from '../../lib/username';

function BigAvatar({ user }: { user: User }) {
  const [failedUrl, setFailedUrl] = useState<string | null>(null);
  const url = user.avatar_url;
  if (url && failedUrl !== url) {
    return (
      <img
        src={url}
        alt=""
        className="size-20 shrink-0 rounded-2xl border border-line object-cover sm:size-24"
        onError={() => setFailedUrl(url)}
      />
    );
  }
  return (
    <span
      aria-hidden="true"
      className="grid size-20 shrink-0 place-items-center rounded-2xl bg-accent-2 font-display text-4xl font-black text-bg italic sm:size-24"
    >
      {initial(user.username)}
    </span>
  );
}

export function ProfileHeader({ user }: { user: User }) {
  const { t } = useTranslation();
  const suffix = usernameSuffix(user.username);
  return (
    <div className="flex flex-wrap items-center gap-5">
      <BigAvatar user={user} />
      <div className="min-w-0 space-y-1">
        <p className="flex flex-wrap items-baseline gap-x-2 gap-y-1">
          <span data-testid="profile-name" className="font-display text-2xl font-black break-all italic">
            {displayName(user.username)}
          </span>
          {suffix && (
            <span
              data-testid="profile-suffix"
              className="rounded-md bg-surface-2 px-1.5 py-0.5 font-mono text-sm text-muted"
            >
              {suffix}
            </span>
          )}
          {user.is_admin && (
            <span className="rounded-md bg-accent/15 px-1.5 py-0.5 text-xs font-bold tracking-wide text-accent uppercase">
              {t('profile.adminBadge')}
            </span>
          )}
        </p>
        <p className="text-sm break-all text-muted">{user.email ?? t('profile.noEmail')}</p>
        {user.bio && <p className="max-w-prose pt-1 text-sm whitespace-pre-line">{user.bio}</p>}
      </div>
    </div>
  );
}
