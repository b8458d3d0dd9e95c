/** Settings of the public configuration the web app reads: the promo video, community links, support address. */
import { z } from 'zod';
import { defineSection, setting } from '../../config/define.js';
import { link } from '../../config/schemas.js';

/** The quick start's support address: a placeholder, shown only with DEMO_ACCOUNTS=true. */
export const DEMO_SUPPORT_EMAIL = 'support@telerace.example';

export const publicConfigConfig = defineSection(
  {
    promoVideoUrl: setting({
      env: 'PROMO_VIDEO_URL',
      schema: link(),
      default: '/media/promo.webm',
      empty: 'none',
      doc: 'Promo video on the home page: a video file or an embeddable player page (`/…` or `http(s)://…`). Empty: no video.',
    }),
    communityStreaming: setting({
      env: 'COMMUNITY_STREAMING_URL',
      schema: link(),
      default: 'https://www.twitch.tv/telerace',
      empty: 'none',
      doc: 'Live streaming channel linked from the About page. Empty: no link.',
    }),
    communityVideo: setting({
      env: 'COMMUNITY_VIDEO_URL',
      schema: link(),
      default: 'https://www.youtube.com/@telerace',
      empty: 'none',
      doc: 'Video channel linked from the About page. Empty: no link.',
    }),
    communityChat: setting({
      env: 'COMMUNITY_CHAT_URL',
      schema: link(),
      default: 'https://discord.gg/telerace',
      empty: 'none',
      doc: 'Community chat invite linked from the About page. Empty: no link.',
    }),
    supportEmail: setting({
      env: 'SUPPORT_EMAIL',
      schema: z.email('must be an e-mail address'),
      default: null,
      defaultDoc: `(unset; demo: \`${DEMO_SUPPORT_EMAIL}\`)`,
      empty: 'none',
      doc: 'The address members write to for help, shown on the FAQ, the terms and the prize-claim page. Unset: no address (those pages tell members to contact the organiser), except with `DEMO_ACCOUNTS=true`, which shows the placeholder.',
    }),
  },
  (
    { promoVideoUrl, communityStreaming, communityVideo, communityChat, supportEmail },
    auth: { demoAccounts: boolean },
  ) => ({
    promoVideoUrl,
    community: { streaming: communityStreaming, video: communityVideo, chat: communityChat },
    // A real site never shows the placeholder: only the demo falls back to it.
    supportEmail: supportEmail ?? (auth.demoAccounts ? DEMO_SUPPORT_EMAIL : null),
  }),
);
