/**
 * Every module. The order they are built, started and subscribed in is computed from what each
 * declares it needs (module.ts `moduleOrder`); this list only breaks ties, and is kept in the
 * order the server always had so that nothing it does at start-up or on a fact moves. Adding a
 * feature = adding its definition anywhere here (docs/architecture.md "The composition root").
 */
import { discordModule } from '../integrations/discord/discord.module.js';
import { integrationsModule } from '../integrations/integrations.module.js';
import { tipsModule } from '../integrations/tips/tips.module.js';
import { twitchModule } from '../integrations/twitch/twitch.module.js';
import { youtubeModule } from '../integrations/youtube/youtube.module.js';
import type { AnyModule } from '../module.js';
import { leadershipModule } from '../scale-out/leadership.module.js';
import { metricsModule } from '../scale-out/metrics/metrics.module.js';
import { memberSocketsModule } from '../sockets/member-sockets.module.js';
import { accountModule } from './account/account.module.js';
import { adminModule } from './admin/admin.module.js';
import { authModule } from './auth/auth.module.js';
import { carDirectoryModule } from './cars/car-directory.module.js';
import { carsModule } from './cars/cars.module.js';
import { controlModule } from './control/control.module.js';
import { healthModule } from './health/health.module.js';
import { leaderboardsModule } from './leaderboards/leaderboards.module.js';
import { publicConfigModule } from './public-config/public-config.module.js';
import { raceFeedModule } from './race-feed/race-feed.module.js';
import { racesModule } from './races/races.module.js';
import { rafflesModule } from './raffles/raffles.module.js';
import { settingsModule } from './settings/settings.module.js';
import { socialModule } from './social/social.module.js';
import { ticketsModule } from './tickets/tickets.module.js';
import { usersModule } from './users/users.module.js';
import { videoModule } from './video/video.module.js';

export const MODULES: readonly AnyModule[] = [
  healthModule,
  leadershipModule,
  publicConfigModule,
  usersModule,
  settingsModule,
  carDirectoryModule,
  memberSocketsModule,
  controlModule,
  videoModule,
  carsModule,
  authModule,
  ticketsModule,
  accountModule,
  adminModule,
  leaderboardsModule,
  racesModule,
  rafflesModule,
  socialModule,
  integrationsModule,
  metricsModule,
  tipsModule,
  twitchModule,
  discordModule,
  youtubeModule,
  raceFeedModule,
];
