/**
 * The three social sign-in buttons. They are plain links, not router links: the server's
 * `/api/auth/{platform}?action=…` starts the provider's login and comes back to /auth/callback.
 * A provider the deployment has not configured (public config `socialProviders`) shows its button
 * disabled with a tooltip, never a link that would fail at the provider.
 */
import type { Platform } from '@telerace/protocol';
import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { cx } from '../../lib/cx';
import { usePublicConfig } from '../../lib/public-config';

export type SocialAction = 'signup' | 'login' | 'claim';

/** Button order on every screen. */
export const SOCIAL_ORDER = ['twitch', 'youtube', 'discord'] as const satisfies readonly Platform[];

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

const LABEL_KEYS: Record<SocialAction, string> = {
  signup: 'social.signupWith',
  login: 'social.loginWith',
  claim: 'social.claimWith',
};

const BUTTON = cx(
  'flex h-11 w-full items-center justify-center gap-2.5 rounded-lg px-4 text-sm font-semibold no-underline transition-colors',
  'focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring',
);

/**
 * An unavailable provider: a button that does nothing, focusable (so keyboard users reach its
 * explanation); the explanation is its description and shows as a tooltip on hover and focus.
 */
function UnavailableButton({ platform, label }: { platform: Platform; label: string }) {
  const { t } = useTranslation();
  const tipId = useId();
  const tip = t('social.unavailable', { platform: t(`social.${platform}`) });
  return (
    <span className="group relative block">
      {/* aria-disabled, not disabled: it stays focusable, so the keyboard reaches the tooltip. */}
      <button
        type="button"
        aria-disabled="true"
        aria-describedby={tipId}
        title={tip}
        data-platform={platform}
        className={cx(BUTTON, 'cursor-not-allowed border border-line bg-surface-2 text-muted')}
      >
        <PlatformIcon platform={platform} />
        {label}
      </button>
      <span
        id={tipId}
        role="tooltip"
        className="pointer-events-none invisible absolute inset-x-0 top-full z-10 mt-1 rounded-md bg-fg px-2 py-1 text-center text-xs text-bg opacity-0 transition-opacity group-focus-within:visible group-focus-within:opacity-100 group-hover:visible group-hover:opacity-100"
      >
        {tip}
      </span>
    </span>
  );
}

/**
 * Twitch, YouTube and Discord, brand-coloured, each leading to the server's `/api/auth/{platform}`.
 * `hideUnavailable`: leave out the providers not configured (the screen says why in its own words).
 */
export function SocialButtons({
  action,
  className,
  hideUnavailable = false,
}: {
  action: SocialAction;
  className?: string;
  hideUnavailable?: boolean;
}) {
  const { t } = useTranslation();
  // Until the config is known (or if it cannot be read) the links stay: the server refuses an
  // unconfigured provider with a clear message anyway.
  const providers = usePublicConfig().data?.socialProviders;
  const shown = SOCIAL_ORDER.filter((platform) => !(hideUnavailable && providers && !providers[platform]));
  return (
    <ul className={cx('grid gap-2.5', className)}>
      {shown.map((platform) => {
        const label = t(LABEL_KEYS[action], { platform: t(`social.${platform}`) });
        return (
          <li key={platform}>
            {providers && !providers[platform] ? (
              <UnavailableButton platform={platform} label={label} />
            ) : (
              <a
                href={socialAuthUrl(platform, action)}
                className={cx(BUTTON, 'text-white shadow-sm', BRAND[platform])}
              >
                <PlatformIcon platform={platform} />
                {label}
              </a>
            )}
          </li>
        );
      })}
    </ul>
  );
}
