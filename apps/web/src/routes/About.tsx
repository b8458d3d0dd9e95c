/** The about page: who we are, the cars, the track, the streams, and the community links. */
import type { PublicConfig } from '@telerace/protocol';
import { useTranslation } from 'react-i18next';
import { Blocks } from '../components/content/RichContent';
import { usePublicConfig } from '../lib/public-config';

const SECTIONS = ['who', 'cars', 'track', 'streams'] as const;

type Platform = keyof PublicConfig['community'];
const PLATFORMS: readonly Platform[] = ['streaming', 'video', 'chat'];

/** Each platform's mark (simplified) and brand colour. */
const ICONS: Record<Platform, { path: string; className: string }> = {
  streaming: {
    // Twitch
    path: 'M5.2 2 3 6.5V20h5v3h3l3-3h4l5-5V2zM7 4h15v10l-3.2 3.2H14L11 20v-2.8H7zm5 3v5.5h2V7zm5 0v5.5h2V7z',
    className: 'text-[#9146ff]',
  },
  video: {
    // YouTube
    path: 'M23 7.3a3 3 0 0 0-2.1-2.1C19 4.7 12 4.7 12 4.7s-7 0-8.9.5A3 3 0 0 0 1 7.3 31 31 0 0 0 .5 12a31 31 0 0 0 .5 4.7 3 3 0 0 0 2.1 2.1c1.9.5 8.9.5 8.9.5s7 0 8.9-.5a3 3 0 0 0 2.1-2.1 31 31 0 0 0 .5-4.7 31 31 0 0 0-.5-4.7zM9.7 15.2V8.8l5.8 3.2z',
    className: 'text-[#ff0000]',
  },
  chat: {
    // Discord
    path: 'M20.3 4.7A19 19 0 0 0 15.6 3.2l-.6 1.2a17.6 17.6 0 0 0-6 0l-.6-1.2a19 19 0 0 0-4.7 1.5C.7 9.2-.1 13.6.3 17.9a19 19 0 0 0 5.8 2.9l1.2-2-1.9-.9.5-.4a13.5 13.5 0 0 0 12.2 0l.5.4-1.9.9 1.2 2a19 19 0 0 0 5.8-2.9c.5-5-.8-9.4-3.4-13.2zM8.5 15.3c-1.2 0-2.1-1.1-2.1-2.4s.9-2.4 2.1-2.4 2.1 1.1 2.1 2.4-.9 2.4-2.1 2.4zm7 0c-1.2 0-2.1-1.1-2.1-2.4s.9-2.4 2.1-2.4 2.1 1.1 2.1 2.4-.9 2.4-2.1 2.4z',
    className: 'text-[#5865f2]',
  },
};

function CommunityLinks() {
  const { t } = useTranslation();
  const config = usePublicConfig();
  if (config.isPending) {
    return (
      <div role="status" className="grid gap-3 sm:grid-cols-3">
        {PLATFORMS.map((platform) => (
          <div key={platform} className="h-20 animate-pulse rounded-2xl bg-surface-2" />
        ))}
        <span className="sr-only">{t('pages.about.community.loading')}</span>
      </div>
    );
  }
  const community = config.data?.community;
  const links = PLATFORMS.flatMap((platform) => {
    const href = community?.[platform];
    return href ? [{ platform, href }] : [];
  });
  if (links.length === 0) return <p className="text-muted">{t('pages.about.community.unavailable')}</p>;
  return (
    <ul className="grid gap-3 sm:grid-cols-3">
      {links.map(({ platform, href }) => (
        <li key={platform}>
          <a
            href={href}
            target="_blank"
            rel="noopener noreferrer"
            className="group flex h-full items-center gap-4 rounded-2xl border border-line bg-surface p-4 text-fg no-underline shadow-sm transition-colors hover:border-accent"
          >
            <span className="inline-flex size-12 shrink-0 items-center justify-center rounded-xl bg-surface-2">
              <svg
                viewBox="0 0 24 24"
                className={`size-7 ${ICONS[platform].className}`}
                fill="currentColor"
                aria-hidden="true"
                focusable="false"
              >
                <path fillRule="evenodd" d={ICONS[platform].path} />
              </svg>
            </span>
            <span className="min-w-0">
              <span className="block font-bold group-hover:text-accent">
                {t(`pages.about.community.${platform}.name`)}
              </span>
              <span className="block text-sm text-muted">{t(`pages.about.community.${platform}.text`)}</span>
              <span className="sr-only"> {t('pages.common.newTab')}</span>
            </span>
          </a>
        </li>
      ))}
    </ul>
  );
}

export default function About() {
  const { t } = useTranslation();
  return (
    <article className="mx-auto max-w-5xl">
      <header className="max-w-3xl">
        <h1 className="font-display text-3xl font-black tracking-tight italic sm:text-4xl">
          {t('pages.about.title')}
        </h1>
        <p className="mt-4 text-xl leading-relaxed text-balance text-muted">{t('pages.about.lead')}</p>
      </header>

      <figure className="mt-8">
        <img
          src="/images/about-track.webp"
          alt={t('pages.about.photoAlt')}
          width={1200}
          height={675}
          className="aspect-video w-full rounded-2xl border border-line object-cover shadow-xl"
        />
        <figcaption className="mt-2 text-sm text-muted">{t('pages.about.photoCaption')}</figcaption>
      </figure>

      <div className="mt-12 grid gap-x-12 gap-y-10 md:grid-cols-2">
        {SECTIONS.map((section) => (
          <section key={section} aria-labelledby={`about-${section}`}>
            <h2
              id={`about-${section}`}
              className="border-l-4 border-accent pl-3 text-xl font-bold tracking-tight text-fg"
            >
              {t(`pages.about.sections.${section}.title`)}
            </h2>
            <div className="mt-4 max-w-prose space-y-4 leading-relaxed text-fg/90">
              <Blocks value={t(`pages.about.sections.${section}.body`, { returnObjects: true })} />
            </div>
          </section>
        ))}
      </div>

      <section aria-labelledby="about-community" className="mt-14">
        <h2
          id="about-community"
          className="font-display text-2xl font-black tracking-tight italic sm:text-3xl"
        >
          {t('pages.about.community.title')}
        </h2>
        <p className="mt-2 mb-5 text-muted">{t('pages.about.community.text')}</p>
        <CommunityLinks />
      </section>
    </article>
  );
}
