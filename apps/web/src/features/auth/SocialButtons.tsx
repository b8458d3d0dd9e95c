/**
 * The social sign-in buttons. They are plain links, not router links: the server's
 * `/api/auth/{platform}?action=…` starts the provider's login and comes back to /auth/callback.
 * Only the platforms the deployment has configured (public config `socialProviders`) are shown,
 * never a link that would fail at the provider.
 */
import type { Platform } from '@telerace/protocol';
import { useTranslation } from 'react-i18next';
import type { TranslationKey } from '../../i18n';
import { cx } from '../../lib/cx';
import { useSocialPlatforms } from '../../lib/public-config';
import { Divider } from './form-fields';

export type SocialAction = 'signup' | 'login' | 'claim';

/** Brand colours, darkened where needed so white text keeps a 4.5:1 contrast. */
const BRAND: Record<Platform, string> = {
  twitch: 'bg-[#9146ff] hover:bg-[#772ce8]',
  youtube: 'bg-[#cc0000] hover:bg-[#a80000]',
  discord: 'bg-[#5865f2] hover:bg-[#4752c4]',
};

export function socialAuthUrl(platform: Platform, action: SocialAction): string {
  return `/api/auth/${platform}?action=${action}`;
}

function PlatformIcon({ platform }: { platform: Platform }) {
  return (
    <svg viewBox="0 0 24 24" className="size-5 shrink-0" aria-hidden="true" focusable="false">
      {platform === 'twitch' && (
        <g fill="none" stroke="currentColor" strokeWidth="2" strokeLinejoin="round">
          <path d="M4.5 3h15v10.5L15.5 17.5h-4L8.5 20.5v-3h-4z" />
          <path strokeLinecap="round" d="M11 7.5v4.5M15 7.5v4.5" />
        </g>
      )}
      {platform === 'youtube' && (
        <>
          <rect x="1.5" y="4.5" width="21" height="15" rx="4.5" fill="currentColor" />
          <path d="M10 8.75v6.5L15.5 12z" fill="#cc0000" />
        </>
      )}
      {platform === 'discord' && (
        <>
          <path
            fill="currentColor"
            d="M8.2 5.2 7.6 4.4C6 4.7 4.6 5.2 3.4 6 1.6 8.8.9 11.6 1.1 15.6c1.6 1.2 3.2 2 4.9 2.4l1.2-1.8c-.7-.3-1.3-.6-1.9-1l.5-.4c3.6 1.7 8.8 1.7 12.4 0l.5.4c-.6.4-1.2.7-1.9 1l1.2 1.8c1.7-.4 3.3-1.2 4.9-2.4.3-4.4-.6-7.2-2.3-9.6-1.2-.8-2.6-1.3-4.2-1.6l-.6.8c-2.4-.4-5.2-.4-7.6 0z"
          />
          <ellipse cx="8.6" cy="12" rx="1.7" ry="1.9" fill="#5865f2" />
          <ellipse cx="15.4" cy="12" rx="1.7" ry="1.9" fill="#5865f2" />
        </>
      )}
    </svg>
  );
}

const LABEL_KEYS: Record<SocialAction, TranslationKey> = {
  signup: 'social.signupWith',
  login: 'social.loginWith',
  claim: 'social.claimWith',
};

const BUTTON = cx(
  'flex h-11 w-full items-center justify-center gap-2.5 rounded-lg px-4 text-sm font-semibold no-underline transition-colors',
  'focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring',
);

/** The configured platforms' buttons, brand-coloured, each leading to the server's `/api/auth/{platform}`. */
export function SocialButtons({ action, className }: { action: SocialAction; className?: string }) {
  const { t } = useTranslation();
  const platforms = useSocialPlatforms();
  if (!platforms?.length) return null;
  return (
    <ul className={cx('grid gap-2.5', className)}>
      {platforms.map((platform) => (
        <li key={platform}>
          <a
            href={socialAuthUrl(platform, action)}
            className={cx(BUTTON, 'text-white shadow-sm', BRAND[platform])}
          >
            <PlatformIcon platform={platform} />
            {t(LABEL_KEYS[action], { platform: t(`social.${platform}`) })}
          </a>
        </li>
      ))}
    </ul>
  );
}

/**
 * Sign-up and log-in's "or continue with" part: the divider and the buttons of the configured
 * platforms; nothing at all when none is configured, nor while the config loads (issue 41 point 8:
 * greyed-out buttons gave no reason at a glance).
 */
export function SocialSignIn({ action, title }: { action: 'signup' | 'login'; title: string }) {
  if (!useSocialPlatforms()?.length) return null;
  return (
    <>
      <Divider>{title}</Divider>
      <SocialButtons action={action} />
    </>
  );
}
