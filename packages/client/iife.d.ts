// Types for the <script> build (@browsermcp/client/iife): it defines one global, BrowserMCP, holding the package's
// exports. `import '@browsermcp/client/iife'` (or a <script> tag) and then use `BrowserMCP.connect(…)`.
import type * as BrowserMCPModule from './dist/index.js';

declare global {
  var BrowserMCP: typeof BrowserMCPModule;
}
