export * from './router/index';
export { formatDuration } from './router/duration.js';
export * from './errors';
export { LocalExecutor } from './local/executor.js';
export type { LocalExecutorOptions } from './local/executor.js';
export { browserEnvironment, DEFAULT_CDP_TIMEOUT_MS, LocalBrowser } from './local/browser.js';
export type { LocalBrowserOptions } from './local/browser.js';
export { BROWSER_CHANNELS, chromeToLaunch, findChannel, findChrome, NO_CHROME_FIX, QUIET_ARGS } from './local/chrome.js';
export type { ChromeSearch } from './local/chrome.js';
export { inside } from './local/protected-files.js';
export {
  FILE_PATH_MODES,
  NodeFileAccess,
  ownerDirName,
  sessionFilesOwner,
  type FilePathMode,
  type NodeFileAccessOptions,
  type SessionOwner,
} from './local/files.js';
export { deviceNames } from './local/page-setup.js';
export type { PageSetupOptions } from './local/page-setup.js';
export { buildDaemonApp } from './server/app.js';
export { allowedHostNames, guardRefusal, hostName, LOOPBACK_HOSTS, type GuardRules } from './server/guard.js';
export { DEFAULT_CONNECTION_LIMITS, limitConnectionsPerAddress, requestTimeouts, type ConnectionLimits } from './server/connections.js';
export type { DaemonAppOptions } from './server/options.js';
export { daemonCore, errorBody } from './server/core.js';
export type { DaemonState, HttpErrorBody } from './server/core.js';
export { httpApi } from './server/http.js';
export type { HealthBody } from './server/http.js';
export { extensionEndpoint } from './server/extension-endpoint.js';
export { proxyEndpoint } from './server/proxy.js';
export { ExtensionConnection, ExtensionRegistry, CloseCodes, parseHello } from './server/extensions.js';
export type { ExtensionRecord, RegisteredConnection } from './server/extension-registry.js';
export type { HelloPayload } from '@browsermcp/protocol';
export type { ExtensionBrowserState as ExtensionState } from './cluster/extension-browsers.js';
export { DEFAULT_MAX_TOKEN_LIFETIME_SECONDS, hs256Verifier, publicKeyVerifier, signToken } from './server/auth.js';
export { defaultPairingFile, loadPairingSecret } from './server/pairing-secret.js';
export { nodeFrameCipher } from './server/node-frame-cipher.js';
export type { TokenVerifier, TokenIdentity, TokenRules, SignTokenOptions } from './server/auth.js';
export { EXTENSION_ID, EXTENSION_ID_PATTERN, DEFAULT_PORT, DEFAULT_HOST, DEFAULT_HEARTBEAT_MS, isLoopbackHost } from './server/constants.js';
export { startDaemon } from './daemon.js';
export { Deadlines } from './deadlines.js';
export type { ClusterSettings, StartDaemonOptions, RunningDaemon } from './daemon.js';
export { ClusterNode, randomInstanceId, DEFAULT_CLUSTER_HEARTBEAT_MS, DEFAULT_DIRECTORY_TTL_MS, type ClusterOptions } from './cluster/node.js';
export { KvRouterStore } from './cluster/kv-store.js';
export { redactNatsUrl, type NatsConnectSettings, type NatsCredentials, type NatsTls } from './cluster/nats-connection.js';
export { createClusterMember, memberPermissions, natsClusterConfig, type ClusterMember, type NatsClusterConfigOptions } from './cluster/nats-config.js';
export { ClusterNames } from './cluster/names.js';
export { browserIdOf } from './cluster/hold-proofs.js';
export { writeNatsClusterFiles, type NatsClusterFiles } from './cluster/nats-files.js';
export {
  applySettingSources,
  boundsOf,
  CDP_REFUSALS,
  ConfigError,
  connectionLimitsOf,
  DEFAULT_COMMAND_TIMEOUT_SECONDS,
  DEFAULT_GRACE_PERIOD_SECONDS,
  DEFAULT_OUTPUT_DIR,
  DEFAULT_VIEWPORT_SIZE,
  ENV_PREFIX,
  intOption,
  LOG_LEVELS,
  readSharedSettings,
  repeatableOption,
  serverFile,
  serverFilePaths,
  settingOption,
  SettingValues,
  SHARED_SETTINGS,
  sharedOptions,
} from './command-line.js';
export type { LogLevel, SharedOptionOverrides, SharedSettingKey, SharedSettings } from './command-line.js';
export type { IntBounds } from './setting-values.js';
export { entryAttribute, entryOption, readEntry, readTable, tableOptions } from './setting-table.js';
export type { EntryValue, IntEntry, ListEntry, SettingEntry, SwitchEntry, TableValues, TextEntry } from './setting-table.js';
export { playwrightEnvAliases } from './playwright-env.js';
export { readToolFlags, toolOptions } from './tool-options.js';
export type { ToolFlagValues } from './tool-options.js';
