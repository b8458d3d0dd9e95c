/**
 * Leaderboards (all-time, per season), the members' race history and a finished race's page. The
 * race engine writes the results and the per-member summary (user-race-stats.repo.ts); this module
 * reads them, and keeps the all-time first pages in memory, exact through `race.finished` and
 * `user.changed`.
 */
import { defineModule } from '../../module.js';
import { leaderboardRoutes } from './leaderboards.routes.js';
import { LeaderboardsService } from './leaderboards.service.js';

declare module '../../module.js' {
  interface Services {
    leaderboards: LeaderboardsService;
  }
}

export const leaderboardsModule = defineModule({
  name: 'leaderboards',
  provides: ['leaderboards'],
  services: ({ db, log }) => ({ leaderboards: new LeaderboardsService({ db, log }) }),
  routes: (services) => [{ plugin: leaderboardRoutes(services) }],
  on: ({ leaderboards }) => leaderboards.handlers(),
});
