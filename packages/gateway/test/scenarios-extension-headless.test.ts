import { afterAll, beforeAll } from 'vitest';
import { personModeRig, startPersonRig, type PersonRig } from './scenarios/person-rig.js';
import { runScenarios } from './scenarios/scenarios.js';

// The shared scenarios through the extension in a headless Chromium: the same rig as the headed file, for a browser
// with no screen (a server, CI without a display). The person's own controls are tested headed only.

let rig: PersonRig;

beforeAll(async () => {
  rig = await startPersonRig({ headless: true });
});
afterAll(async () => {
  await rig?.close();
});

runScenarios('extension', () => personModeRig(rig));
