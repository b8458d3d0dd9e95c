/** Settings of the public configuration the web app reads: the promo video and community links. */
import { defineSection, setting } from '../../config/define.js';
import { link } from '../../config/schemas.js';

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
  },
  ({ promoVideoUrl, communityStreaming, communityVideo, communityChat }) => ({
    promoVideoUrl,
    community: { streaming: communityStreaming, video: communityVideo, chat: communityChat },
  }),
);
