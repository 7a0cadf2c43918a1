// Replaced at build time by tsup (see tsup.config.ts) so the bundle needs no package.json at run time.
declare const __GATEWAY_VERSION__: string | undefined;
export const VERSION: string = typeof __GATEWAY_VERSION__ === 'string' ? __GATEWAY_VERSION__ : '0.0.0-dev';
