/** The configuration, re-exported from `config/` so that imports of `config.js` keep working. */
export type { LogLevel } from './config/core.config.js';
export { ConfigError } from './config/define.js';
export { CONFIG_SECTIONS, type Config, dataDirFrom, loadConfig } from './config/load.js';
