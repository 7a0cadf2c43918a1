import type { ElementHandle, Frame, JSHandle } from 'puppeteer-core';
import type { InjectedApi } from '../injected/api.js';
import { frameContext } from './cdp.js';
import { INJECTED_KEY } from '../injected/key.js';
import { INJECTED_SOURCE } from '../injected/generated.js';

type Name = keyof InjectedApi;
/** Arguments as the host passes them: an element in the page is an ElementHandle here. */
type HostArgs<A extends readonly unknown[]> = {
  [K in keyof A]: A[K] extends Element ? ElementHandle<Element> : A[K] extends Element | null ? ElementHandle<Element> | null : A[K];
};
type Result<N extends Name> = Awaited<ReturnType<InjectedApi[N]>>;

const NOT_INSTALLED = 'browsermcp: the injected script is not installed in this document';

/** Runs in the page: the installed API's function by name, or the sentinel error that asks the host to install it. */
function callInstalled(key: string, missing: string, name: string, ...args: unknown[]): unknown {
  const api = (globalThis as unknown as Record<symbol, Record<string, (...a: unknown[]) => unknown> | undefined>)[Symbol.for(key)];
  if (!api) throw new Error(missing);
  return api[name]!(...args);
}

/**
 * Calls an in-page function by name in `frame`'s document, installing the script there first if this document has
 * not got it yet (a new page, a navigation, a new frame): one round trip per call, two more once per document.
 */
export async function inPage<N extends Name>(frame: Frame, name: N, ...args: HostArgs<Parameters<InjectedApi[N]>>): Promise<Result<N>> {
  return withInstall(frame, () => frame.evaluate(callInstalled, INJECTED_KEY, NOT_INSTALLED, name, ...(args as unknown[])) as Promise<Result<N>>);
}

/** As inPage, for a function that returns an element or other object: its handle. */
export async function inPageHandle<N extends Name>(frame: Frame, name: N, ...args: HostArgs<Parameters<InjectedApi[N]>>): Promise<JSHandle> {
  return withInstall(frame, () => frame.evaluateHandle(callInstalled, INJECTED_KEY, NOT_INSTALLED, name, ...(args as unknown[])));
}

async function withInstall<T>(frame: Frame, call: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      // A document that navigated between install and call asks again; three times means something else is wrong.
      if (!(err instanceof Error) || !err.message.includes(NOT_INSTALLED) || attempt === 2) throw err;
    }
    await install(frame);
  }
}

/**
 * Installs the script in `frame`'s document through a DevTools evaluation with the console's functions in scope, so
 * that it keeps `getEventListeners` for itself (the walk's way to see listeners added by script: listeners.ts).
 * A context gone by then (the frame navigated) or a session that refuses it falls back to a plain install.
 */
async function install(frame: Frame): Promise<void> {
  const target = frameContext(frame);
  if (target) {
    try {
      const { exceptionDetails } = await target.client.send('Runtime.evaluate', {
        expression: INJECTED_SOURCE,
        includeCommandLineAPI: true,
        contextId: target.contextId,
        silent: true,
      });
      if (!exceptionDetails) return;
    } catch {
      // Falls through to the plain install, which waits for the frame's new context.
    }
  }
  await frame.evaluate(INJECTED_SOURCE);
}
