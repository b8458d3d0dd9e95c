/**
 * The chat and stream integrations' hub (docs/integrations.md): each platform is its own module
 * (twitch/, youtube/, discord/, tips/) that starts only when its settings are present and hands
 * what viewers do to this hub, which turns it into raffle entries and tickets. The hub also
 * carries the bots' announcements (a raffle opened, its winners, a race's podium) to every chat.
 */
import { defineModule } from '../module.js';
import { ChatAnnouncer } from './chat-announcer.js';
import { integrationsRoutes } from './integrations.routes.js';
import { IntegrationsService } from './integrations.service.js';

declare module '../module.js' {
  interface Services {
    /** Join commands, donations and subscriptions from every platform; integration states. */
    integrations: IntegrationsService;
    /** The bots' announcements, made from the facts on the leader (chat-announcer.ts). */
    chatAnnouncer: ChatAnnouncer;
  }
}

export const integrationsModule = defineModule({
  name: 'integrations',
  needs: ['raffles', 'tickets', 'settings', 'leaderboards'],
  provides: ['integrations', 'chatAnnouncer'],
  services: ({ config, db, clock, log, services }) => {
    const integrationsLog = log.child({ module: 'integrations' });
    const integrations = new IntegrationsService({
      db,
      clock,
      log: integrationsLog,
      raffles: services.raffles,
      tickets: services.tickets,
      settings: {
        joinCommand: config.chatJoinCommand,
        language: config.chatLanguage,
        usdRates: config.donationUsdRates,
      },
    });
    return {
      integrations,
      chatAnnouncer: new ChatAnnouncer({
        hub: integrations,
        settings: services.settings,
        results: services.leaderboards,
        claimUrl: `${config.publicUrl}/claim`,
        claimMinutes: config.prizeClaimMinutes,
        log: integrationsLog,
      }),
    };
  },
  routes: (services) => [{ plugin: integrationsRoutes(services) }],
  on: ({ integrations }) => ({
    // One answer per viewer and raffle: a new raffle, or the end of one, starts a new round.
    'raffle.opened': () => integrations.newRound(),
    'raffle.drawn': () => integrations.newRound(),
    'raffle.aborted': () => integrations.newRound(),
  }),
  // The bots are in the chats on the leader only: an announcement is said once, there.
  onLeader: ({ chatAnnouncer }) => ({
    'raffle.opened': (fact) => chatAnnouncer.raffleOpened(fact),
    'raffle.drawn': (fact) => chatAnnouncer.raffleDrawn(fact),
    'race.finished': (fact) => chatAnnouncer.raceFinished(fact),
  }),
});
