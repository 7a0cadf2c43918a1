import { injectedApi } from './api.js';
import { INJECTED_KEY } from './key.js';

// The bundle's entry: installs the API once per document (a second install, from a racing call, leaves the first).
const key = Symbol.for(INJECTED_KEY);
if (!(key in globalThis)) Object.defineProperty(globalThis, key, { value: injectedApi, enumerable: false });
