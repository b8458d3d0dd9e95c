/**
 * The server's configuration: the settings tables of the core and of each module, concatenated.
 * A wrong value throws a ConfigError whose message is one line naming the variable; main.ts prints
 * it and exits, so the process never starts half-configured.
 */
import { discordConfig } from '../integrations/discord/discord.config.js';
import { integrationsConfig } from '../integrations/integrations.config.js';
import { twitchConfig } from '../integrations/twitch/twitch.config.js';
import { youtubeConfig } from '../integrations/youtube/youtube.config.js';
import { authConfig } from '../modules/auth/auth.config.js';
import { carsConfig } from '../modules/cars/cars.config.js';
import { controlConfig } from '../modules/control/control.config.js';
import { mailConfig } from '../modules/mail/mail.config.js';
import { publicConfigConfig } from '../modules/public-config/public-config.config.js';
import { racesConfig } from '../modules/races/races.config.js';
import { rafflesConfig } from '../modules/raffles/raffles.config.js';
import { socialConfig } from '../modules/social/social.config.js';
import { videoConfig } from '../modules/video/video.config.js';
import { metricsConfig } from '../scale-out/metrics/metrics.config.js';
import { scaleOutConfig } from '../scale-out/scale-out.config.js';
import { coreConfig } from './core.config.js';
import { type LoadOptions, parseSections, parseSetting, type SectionOutput } from './define.js';

/** In this order: the README lists them so, and a section's build sees what those before it built. */
export const CONFIG_SECTIONS = [
  coreConfig,
  authConfig,
  mailConfig,
  publicConfigConfig,
  carsConfig,
  videoConfig,
  controlConfig,
  racesConfig,
  rafflesConfig,
  socialConfig,
  integrationsConfig,
  twitchConfig,
  youtubeConfig,
  discordConfig,
  scaleOutConfig,
  metricsConfig,
] as const;

type UnionToIntersection<U> = (U extends unknown ? (part: U) => void : never) extends (part: infer I) => void
  ? I
  : never;

export type Config = UnionToIntersection<SectionOutput<(typeof CONFIG_SECTIONS)[number]>>;

/**
 * Parses the environment. Pure except for the JWT secret: when none is given it is read from, or
 * generated into, `DATA_DIR/jwt-secret` (only read in a dry run).
 */
export function loadConfig(
  env: Record<string, string | undefined> = process.env,
  options: LoadOptions = {},
): Config {
  return parseSections(CONFIG_SECTIONS, env, options) as Config;
}

/** DATA_DIR as the server resolves it (`npm run backup`/`restore` read only this and DATABASE_URL). */
export function dataDirFrom(env: Record<string, string | undefined>): string {
  const parsed = parseSetting(coreConfig.settings.dataDir, env.DATA_DIR);
  // The schema accepts any text, so this is a bug, never an operator's mistake.
  if (!parsed.ok) throw new Error(parsed.problem);
  return parsed.value as string;
}
