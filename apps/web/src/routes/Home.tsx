/**
 * The home page: welcome, photo, promo video, how it works and the calls to action; above them, a
 * signed-in member's last race while it is recent (issue 41: a race's end sends its drivers here).
 */
import type { Platform } from '@telerace/protocol';
import { lazy, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import logoUrl from '../assets/logo.svg';
import { LinkButton } from '../components/ui/LinkButton';
import { useAuth } from '../features/auth/auth-context';
import { usePublicConfig, useSocialPlatforms } from '../lib/public-config';
import { HOME_PHOTO } from './home-photo';

/** The server's default promo video, played when the public config cannot be loaded. */
const DEFAULT_PROMO_VIDEO = '/media/promo.webm';
const DEFAULT_PROMO_POSTER = '/media/promo-poster.webp';

type Player = { kind: 'iframe'; src: string } | { kind: 'video'; src: string };

/**
 * A player page (YouTube/Vimeo/Twitch embed, or any `/embed/` URL) goes in an iframe; YouTube and
 * Vimeo page links are turned into their embed URL; anything else is treated as a video file.
 */
function promoPlayer(url: string): Player {
  let parsed: URL;
  try {
    parsed = new URL(url, 'https://telerace.invalid');
  } catch {
    return { kind: 'video', src: url };
  }
  const host = parsed.hostname.replace(/^www\.|^m\./, '');
  if (/\.(webm|mp4|m4v|ogv|ogg|mov)$/i.test(parsed.pathname)) return { kind: 'video', src: url };
  if (host === 'youtube.com' && parsed.pathname === '/watch' && parsed.searchParams.get('v')) {
    return { kind: 'iframe', src: `https://www.youtube-nocookie.com/embed/${parsed.searchParams.get('v')}` };
  }
  if (host === 'youtu.be' && parsed.pathname.length > 1) {
    return { kind: 'iframe', src: `https://www.youtube-nocookie.com/embed${parsed.pathname}` };
  }
  if (host === 'vimeo.com' && /^\/\d+$/.test(parsed.pathname)) {
    return { kind: 'iframe', src: `https://player.vimeo.com/video${parsed.pathname}` };
  }
  if (
    parsed.pathname.includes('/embed/') ||
    host === 'player.vimeo.com' ||
    host === 'player.twitch.tv' ||
    host === 'clips.twitch.tv'
  ) {
    return { kind: 'iframe', src: url };
  }
  return { kind: 'video', src: url };
}

function PromoMedia() {
  const { t } = useTranslation();
  const config = usePublicConfig();
  if (config.isPending) {
    return (
      <div role="status" className="aspect-video w-full animate-pulse rounded-2xl bg-surface-2">
        <span className="sr-only">{t('pages.home.video.loading')}</span>
      </div>
    );
  }
  // Without the config (server unreachable) the bundled promo still plays.
  const url = config.isError ? DEFAULT_PROMO_VIDEO : config.data.promoVideoUrl;
  if (!url) return null;
  const player = promoPlayer(url);
  const frame = 'aspect-video w-full rounded-2xl border border-line bg-black shadow-xl';
  if (player.kind === 'iframe') {
    return (
      <iframe
        src={player.src}
        title={t('pages.home.video.playerTitle')}
        className={frame}
        allow="accelerometer; autoplay; clipboard-write; encrypted-media; gyroscope; picture-in-picture; fullscreen"
        loading="lazy"
        referrerPolicy="strict-origin-when-cross-origin"
      />
    );
  }
  return (
    // biome-ignore lint/a11y/useMediaCaption: the promo has no speech or sound to caption.
    <video
      className={frame}
      controls
      preload="metadata"
      playsInline
      poster={player.src === DEFAULT_PROMO_VIDEO ? DEFAULT_PROMO_POSTER : undefined}
      aria-label={t('pages.home.video.playerTitle')}
    >
      <source src={player.src} />
      <p className="p-4 text-white">
        {t('pages.home.video.fallback')}{' '}
        <a href={player.src} download>
          {t('pages.home.video.download')}
        </a>
      </p>
    </video>
  );
}

function PromoVideo() {
  const { t } = useTranslation();
  const config = usePublicConfig();
  if (config.isSuccess && !config.data.promoVideoUrl) return null;
  return (
    <section aria-labelledby="home-video" className="grid items-center gap-8 lg:grid-cols-[2fr_3fr]">
      <div>
        <h2 id="home-video" className="font-display text-2xl font-black tracking-tight italic sm:text-3xl">
          {t('pages.home.video.title')}
        </h2>
        <p className="mt-3 max-w-prose leading-relaxed text-muted">{t('pages.home.video.text')}</p>
      </div>
      <PromoMedia />
    </section>
  );
}

/** Fetched with its own code, and only for a member; a chunk that cannot be fetched shows nothing. */
const LastRace = lazy(() =>
  import('../features/leaderboards/LastRace').catch(() => ({ default: () => null })),
);

const STEPS = ['signup', 'access', 'drive', 'race'] as const;

function StepIcon({ step }: { step: (typeof STEPS)[number] }) {
  const paths: Record<(typeof STEPS)[number], string> = {
    signup: 'M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8zm-7 8a7 7 0 0 1 14 0M19 8v6m-3-3h6',
    access: 'M4 9h16v11H4zm8-5v5m-4 0a3 3 0 0 1 0-5c2 0 4 5 4 5s2-5 4-5a3 3 0 0 1 0 5M4 13h16',
    drive:
      'M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18zm0-6a3 3 0 1 0 0-6 3 3 0 0 0 0 6zM3.5 10.5 9 12m6 0 5.5-1.5M12 15v6',
    race: 'M5 21V4m0 0h12l-2 4 2 4H5',
  };
  return (
    <svg viewBox="0 0 24 24" className="size-6" aria-hidden="true" focusable="false">
      <path
        d={paths[step]}
        fill="none"
        stroke="currentColor"
        strokeWidth="2"
        strokeLinecap="round"
        strokeLinejoin="round"
      />
    </svg>
  );
}

/** Brand names, the same in every language (the `social` texts come later, with the sign-in pages). */
const PLATFORM_NAMES: Record<Platform, string> = { twitch: 'Twitch', youtube: 'YouTube', discord: 'Discord' };

/**
 * "Sign up" promises only the social platforms this deployment can sign in with (issue 41 point 8),
 * the e-mail alone while the config loads or when there is none.
 */
function SignupStepText() {
  const { t, i18n } = useTranslation();
  const platforms = useSocialPlatforms();
  if (!platforms?.length) return t('pages.home.how.steps.signup.text');
  const names = new Intl.ListFormat(i18n.resolvedLanguage, { type: 'disjunction' }).format(
    platforms.map((platform) => PLATFORM_NAMES[platform]),
  );
  return t('pages.home.how.steps.signup.textWith', { platforms: names });
}

function CallsToAction() {
  const { t } = useTranslation();
  const { user } = useAuth();
  return (
    <div className="flex flex-wrap gap-3">
      <LinkButton to={user ? '/car-selection' : '/signup'} size="lg">
        {user ? t('pages.home.chooseCar') : t('pages.home.signup')}
      </LinkButton>
      <LinkButton to="/leaderboards" size="lg" variant="secondary">
        {t('pages.home.leaderboards')}
      </LinkButton>
    </div>
  );
}

export default function Home() {
  const { t } = useTranslation();
  const { user } = useAuth();
  return (
    <div className="mx-auto max-w-6xl space-y-16 sm:space-y-20">
      <div className="space-y-8">
        {user && (
          <Suspense fallback={null}>
            <LastRace />
          </Suspense>
        )}
        <section aria-labelledby="home-title" className="grid items-center gap-10 lg:grid-cols-2 lg:gap-12">
          <div>
            <div className="flex items-center gap-4">
              <img
                src={logoUrl}
                alt={t('pages.home.logoAlt')}
                width={72}
                height={72}
                className="size-16 sm:size-18"
              />
              <p className="text-xs font-bold tracking-[0.2em] text-accent-2 uppercase">
                {t('pages.home.eyebrow')}
              </p>
            </div>
            <h1
              id="home-title"
              className="mt-6 font-display text-4xl font-black tracking-tight text-balance italic sm:text-5xl"
            >
              {t('pages.home.title')}
            </h1>
            <p className="mt-4 text-xl font-semibold text-balance text-accent sm:text-2xl">
              {t('pages.home.tagline')}
            </p>
            <p className="mt-5 max-w-prose text-lg leading-relaxed text-muted">{t('pages.home.intro')}</p>
            <div className="mt-8">
              <CallsToAction />
            </div>
          </div>
          <figure className="relative">
            <div
              className="checkered pointer-events-none absolute -bottom-4 -left-3 h-24 w-40 sm:-left-5 opacity-60 [mask-image:linear-gradient(to_right,black,transparent)]"
              aria-hidden="true"
            />
            <img
              src={HOME_PHOTO.src}
              srcSet={HOME_PHOTO.srcSet}
              sizes={HOME_PHOTO.sizes}
              alt={t('pages.home.photoAlt')}
              width={HOME_PHOTO.width}
              height={HOME_PHOTO.height}
              fetchPriority="high"
              className="relative aspect-video w-full rounded-2xl border border-line object-cover shadow-xl"
            />
          </figure>
        </section>
      </div>

      <PromoVideo />

      <section aria-labelledby="home-how">
        <h2 id="home-how" className="font-display text-2xl font-black tracking-tight italic sm:text-3xl">
          {t('pages.home.how.title')}
        </h2>
        <ol className="mt-6 grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
          {STEPS.map((step, index) => (
            <li key={step} className="relative rounded-2xl border border-line bg-surface p-5 shadow-sm">
              <div className="flex items-center justify-between">
                <span className="inline-flex size-11 items-center justify-center rounded-xl bg-accent/10 text-accent">
                  <StepIcon step={step} />
                </span>
                <span className="font-display text-4xl font-black text-line italic" aria-hidden="true">
                  {index + 1}
                </span>
              </div>
              <h3 className="mt-4 text-lg font-bold text-fg">{t(`pages.home.how.steps.${step}.title`)}</h3>
              <p className="mt-2 text-sm leading-relaxed text-muted">
                {step === 'signup' ? <SignupStepText /> : t(`pages.home.how.steps.${step}.text`)}
              </p>
            </li>
          ))}
        </ol>
      </section>

      <section
        aria-labelledby="home-cta"
        className="relative overflow-hidden rounded-2xl border border-line bg-surface shadow-sm"
      >
        <div className="racing-stripe h-1" aria-hidden="true" />
        <div
          className="checkered pointer-events-none absolute right-0 bottom-0 h-32 w-64 opacity-50 [mask-image:linear-gradient(to_left,black,transparent)]"
          aria-hidden="true"
        />
        <div className="relative flex flex-col gap-6 p-6 sm:p-10">
          <div>
            <h2 id="home-cta" className="font-display text-2xl font-black tracking-tight italic sm:text-3xl">
              {t('pages.home.cta.title')}
            </h2>
            <p className="mt-2 max-w-prose leading-relaxed text-muted">{t('pages.home.cta.text')}</p>
          </div>
          <CallsToAction />
        </div>
      </section>
    </div>
  );
}
