/**
 * Discord (docs/integrations.md "Discord"): the bot starts only when DISCORD_BOT_TOKEN and
 * DISCORD_GUILD_ID are set (else the integration stays "not configured"), connects in the
 * background and stops with the server.
 */
import { defineModule } from '../../module.js';
import { DiscordBot } from './discord-bot.js';
import { DiscordLoyalty } from './discord-loyalty.js';

declare module '../../module.js' {
  interface Services {
    /** The Discord bot; null when Discord is not configured. */
    discordBot: DiscordBot | null;
  }
}

export const discordModule = defineModule({
  name: 'discord',
  needs: ['integrations', 'leadership'],
  provides: ['discordBot'],
  services: ({ config, clock, log, services }) => {
    if (config.discordBot === null) return { discordBot: null };
    const discordLog = log.child({ module: 'discord' });
    return {
      discordBot: new DiscordBot({
        settings: config.discordBot,
        apiUrl: config.social.discord.apiUrl,
        hub: services.integrations,
        loyalty: new DiscordLoyalty({
          hub: services.integrations,
          clock,
          log: discordLog,
          loyaltyRoleId: config.discordBot.loyaltyRoleId,
        }),
        log: discordLog,
      }),
    };
  },
  // One bot connection for the site: on the leader only (issue 15).
  start: async ({ discordBot, leadership }) => {
    if (discordBot)
      await leadership.assign({
        name: 'discord',
        lead: () => discordBot.start(),
        follow: () => discordBot.stop(),
      });
  },
  stop: ({ discordBot }) => discordBot?.stop(),
});
