/** Where the installed script keeps its API on the window (a Symbol.for key, not enumerable). */
export const INJECTED_KEY = 'browsermcp.injected';
