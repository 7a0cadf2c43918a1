import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testChromePath } from '@browsermcp/testkit';
import { LocalExecutor, SessionRouter, type LocalExecutorOptions } from '../../src/index.js';

export interface ToolResultLike {
  content: Array<{ type: string; text?: string }>;
  isError?: boolean;
}

export interface LocalRig {
  router: SessionRouter;
  executor: LocalExecutor;
  outputDir: string;
  /** Runs one tool in a session and returns its result. */
  call(sessionId: string, name: string, payload?: Record<string, unknown>): Promise<ToolResultLike>;
  /** Runs one tool and returns its text, failing the test if the tool reported an error. */
  text(sessionId: string, name: string, payload?: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `bmcp-${prefix}-`));
}

/** A router with a LocalExecutor on the test Chromium; the browser starts on the first command. */
export async function startLocal(options: Partial<LocalExecutorOptions> = {}): Promise<LocalRig> {
  const router = new SessionRouter({ defaultExecutorId: 'local', commandTimeoutMs: 30_000 });
  const outputDir = options.outputDir ?? tempDir('out');
  const executor = new LocalExecutor(router, {
    executablePath: testChromePath(),
    browserArgs: ['--disable-dev-shm-usage'],
    ...options,
    outputDir,
  });
  await router.executorConnected(executor);
  const call = async (sessionId: string, name: string, payload: Record<string, unknown> = {}) =>
    (await router.dispatch(sessionId, { name, payload })) as ToolResultLike;
  return {
    router,
    executor,
    outputDir,
    call,
    async text(sessionId, name, payload) {
      const result = await call(sessionId, name, payload);
      const text = result.content.map((c) => c.text ?? '').join('\n');
      if (result.isError) throw new Error(`${name} failed: ${text}`);
      return text;
    },
    async close() {
      await executor.close();
      await router.close();
    },
  };
}

/** The JSON an evaluate result holds in its ### Result section. */
export function evaluated(text: string): unknown {
  const m = /### Result\n([\s\S]*?)(?:\n###|$)/.exec(text);
  if (!m) throw new Error(`no ### Result in:\n${text}`);
  return JSON.parse(m[1]!.trim());
}

export { alive, processTree } from '@browsermcp/testkit';
export { testChromePath };
