import { injectedApi } from './api.js';
import { INJECTED_KEY } from './key.js';
import { keepListenerReader } from './listeners.js';

// DevTools' console function, in scope only while the engine installs this script (in-page.ts); undefined otherwise.
declare const getEventListeners: unknown;

// The bundle's entry: installs the API once per document (a second install, from a racing call, leaves the first).
const key = Symbol.for(INJECTED_KEY);
if (!(key in globalThis)) {
  keepListenerReader(typeof getEventListeners === 'function' ? getEventListeners : undefined);
  Object.defineProperty(globalThis, key, { value: injectedApi, enumerable: false });
}
