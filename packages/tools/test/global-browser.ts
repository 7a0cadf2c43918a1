import { launchTestBrowser } from '@browsermcp/testkit';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The WebSocket endpoint of the Chromium every test file connects to (see harness.ts). */
    chromiumEndpoint: string;
  }
}

// One Chromium for the whole run: launching one per file cost about a second each. Each file connects to it and each
// session still gets a fresh browser context; closed here, once every file is done.
export default async function launchSharedBrowser(project: TestProject): Promise<() => Promise<void>> {
  // Launched with the run's TMPDIR, as the tests' own processes are, so its profile and temp files go under it too.
  const tmpdir = process.env.TMPDIR;
  process.env.TMPDIR = project.config.env.TMPDIR;
  const browser = await launchTestBrowser().finally(() => {
    if (tmpdir === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = tmpdir;
  });
  project.provide('chromiumEndpoint', browser.wsEndpoint());
  return () => browser.close();
}
