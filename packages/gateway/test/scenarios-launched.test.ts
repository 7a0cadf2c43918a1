import { startFixtureServer, type FixtureServer } from '@browsermcp/testkit';
import { afterAll, beforeAll } from 'vitest';
import type { EmbeddedBackend, RunningHttpGateway } from '../src/index.js';
import { connectClient, startGateway } from './helpers.js';
import { runScenarios, SCENARIO_FLAGS, type ModeRig } from './scenarios/scenarios.js';

// The shared scenarios in a browser the gateway launches (headless).

let gw: RunningHttpGateway;
let server: FixtureServer;

beforeAll(async () => {
  [gw, server] = await Promise.all([startGateway(SCENARIO_FLAGS), startFixtureServer()]);
});
afterAll(async () => {
  await gw?.close();
  await server?.close();
});

runScenarios(
  'launched',
  (): ModeRig => ({
    mode: 'launched',
    server,
    client: (name, options) => connectClient(gw, name, options),
    async closeAsPerson(url) {
      const browser = await (gw.backend as EmbeddedBackend).executor.browser.get();
      const pages = (await Promise.all(browser.browserContexts().map((c) => c.pages()))).flat();
      const page = pages.find((p) => p.url() === url);
      if (!page) throw new Error(`no tab shows ${url}`);
      await page.close();
    },
    // The session's tab is in front already: a launched browser brings it forward.
    lookAt: async () => async () => undefined,
    answerBanner() {
      throw new Error('nobody can see a headless browser');
    },
  }),
);
