/**
 * config: the configuration file (SPEC §2.10) — schema, first-start template, loading, hot reload
 * and the comment-preserving PATCH writer. Uses: the filesystem, a logger. Used by: every service.
 */

export {
  DEFAULT_TUI_KEYS,
  effectiveKeys,
  keyClashes,
  keyProblem,
  RESERVED_KEYS,
  TUI_OPERATIONS,
  type TuiOperation,
} from '../../shared/tui-keys.js';
export { formatDuration, parseDuration, tryParseDuration } from './duration.js';
export { parseConfigText, readConfigFile } from './load.js';
export { configReference } from './reference.js';
export {
  type Config,
  type ConfigInput,
  ConfigSchema,
  defaultConfig,
  parseListen,
} from './schema.js';
export {
  type ConfigCheck,
  ConfigError,
  type ConfigFileRejection,
  type ConfigListener,
  ConfigService,
  type ConfigSource,
} from './service.js';
export { tryParseSize } from './size.js';
export { configTemplate, objectShape, unwrapSchema } from './template.js';
