/**
 * Every module, in the order their services are built (a module may use the services of those
 * before it) and started; they stop in reverse order. Adding a feature = adding its definition
 * here (docs/architecture.md "Adding a module").
 */
import { discordModule } from '../integrations/discord/discord.module.js';
import { integrationsModule } from '../integrations/integrations.module.js';
import { tipsModule } from '../integrations/tips/tips.module.js';
import { twitchModule } from '../integrations/twitch/twitch.module.js';
import { youtubeModule } from '../integrations/youtube/youtube.module.js';
import type { TeleraceModule } from '../module.js';
import { leadershipModule } from '../scale-out/leadership.module.js';
import { metricsModule } from '../scale-out/metrics/metrics.module.js';
import { memberSocketsModule } from '../sockets/member-sockets.module.js';
import { accountModule } from './account/account.module.js';
import { adminModule } from './admin/admin.module.js';
import { authModule } from './auth/auth.module.js';
import { carDirectoryModule } from './cars/car-directory.module.js';
import { carsModule } from './cars/cars.module.js';
import { controlModule } from './control/control.module.js';
import { eventsModule } from './events/events.module.js';
import { healthModule } from './health/health.module.js';
import { leaderboardsModule } from './leaderboards/leaderboards.module.js';
import { publicConfigModule } from './public-config/public-config.module.js';
import { racesModule } from './races/races.module.js';
import { rafflesModule } from './raffles/raffles.module.js';
import { settingsModule } from './settings/settings.module.js';
import { socialModule } from './social/social.module.js';
import { ticketsModule } from './tickets/tickets.module.js';
import { usersModule } from './users/users.module.js';
import { videoModule } from './video/video.module.js';

export const MODULES: readonly TeleraceModule[] = [
  healthModule,
  // Before every module that hands it leader-only work (races, the chat integrations).
  leadershipModule,
  publicConfigModule,
  usersModule,
  settingsModule,
  carDirectoryModule,
  // Before every module that owns a member's sockets (control, video, events).
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
  // After every service it reads (relay, race, raffles, video, integration states).
  metricsModule,
  tipsModule,
  twitchModule,
  discordModule,
  youtubeModule,
  eventsModule,
];
