// What the front ends get of a workspace's configuration: loading and checking murmur.toml (loadConfig,
// validateConfig), its error and its shape (ConfigError, MurmurConfig), and the Environment its variables are read from.
export { ConfigError, loadConfig, validateConfig, type MurmurConfig } from '../orchestrator/config.js';
export type { Environment } from '../orchestrator/environment.js';
