export * from './router/index';
export * from './errors';
export { LocalExecutor } from './local/executor.js';
export type { LocalExecutorOptions } from './local/executor.js';
export { LocalBrowser } from './local/browser.js';
export type { LocalBrowserOptions } from './local/browser.js';
export { findChrome, QUIET_ARGS } from './local/chrome.js';
export { NodeFileAccess } from './local/files.js';
