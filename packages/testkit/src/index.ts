export { launchExtensionBrowser, launchTestBrowser, openExtensionPage, QUIET_FLAGS, testChromePath } from './browser.js';
export { startFixtureServer, tableHtml } from './fixture-server.js';
export type { FixtureServer, FixtureServerOptions } from './fixture-server.js';
