/**
 * The Discord integration's settings (docs/integrations.md "Discord"): a bot (discord.js) with the
 * `/join` slash command on one guild. The REST base is the social sign-in's `DISCORD_API_URL`;
 * the gateway URL is what that REST API's `/gateway/bot` answers (a local stand-in in tests).
 */
import { z } from 'zod';
import { configError, defineSection, setting } from '../../config/define.js';

export interface DiscordBotSettings {
  botToken: string;
  guildId: string;
  /** Where the text command is read and test messages go; null: the slash command only. */
  channelId: string | null;
  /** Members with this role count as subscribers; null: the guild's boosters do. */
  loyaltyRoleId: string | null;
}

const snowflake = () =>
  z
    .string()
    .trim()
    .regex(/^\d{5,25}$/, 'a Discord id (digits)');

export const discordConfig = defineSection(
  {
    discordBotToken: setting({
      env: 'DISCORD_BOT_TOKEN',
      schema: z.string().trim().min(1),
      default: null,
      doc: 'The Discord bot’s token (with `DISCORD_GUILD_ID`). Unset: Discord is not configured.',
      secret: true,
    }),
    discordGuildId: setting({
      env: 'DISCORD_GUILD_ID',
      schema: snowflake(),
      default: null,
      doc: 'The guild (server) where `/join` is registered.',
    }),
    discordChannelId: setting({
      env: 'DISCORD_CHANNEL_ID',
      schema: snowflake(),
      default: null,
      doc: 'Optional: the channel where the text join command is read and test messages are sent.',
    }),
    discordLoyaltyRoleId: setting({
      env: 'DISCORD_LOYALTY_ROLE_ID',
      schema: snowflake(),
      default: null,
      doc: 'Optional: members with this role count as subscribers (loyalty tickets). Unset: the guild’s server boosters do.',
    }),
  },
  (values) => {
    if ((values.discordBotToken === null) !== (values.discordGuildId === null)) {
      throw configError('DISCORD_BOT_TOKEN and DISCORD_GUILD_ID must be set together');
    }
    const discordBot: DiscordBotSettings | null =
      values.discordBotToken !== null && values.discordGuildId !== null
        ? {
            botToken: values.discordBotToken,
            guildId: values.discordGuildId,
            channelId: values.discordChannelId,
            loyaltyRoleId: values.discordLoyaltyRoleId,
          }
        : null;
    return { discordBot };
  },
);
