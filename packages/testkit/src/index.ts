export { launchExtensionBrowser, launchTestBrowser, openExtensionPage, QUIET_FLAGS, stopExtensionWorker, testChromePath } from './browser.js';
export { startFixtureServer, tableHtml } from './fixture-server.js';
export type { FixtureServer, FixtureServerOptions } from './fixture-server.js';
export { refIn, textOf } from './results.js';
export { alive, devToolsExposure, processTree } from './processes.js';
export type { DevToolsExposure } from './processes.js';
export { startForwardProxy } from './forward-proxy.js';
export type { ForwardProxy } from './forward-proxy.js';
