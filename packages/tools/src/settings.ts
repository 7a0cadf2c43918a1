import type { SessionConfig } from './session.js';

/** The gateway's flags that shape how tools behave, in the form they travel to any host (the extension too). */
export interface ToolSettings {
  snapshotMaxChars?: number | undefined;
  allowedOrigins?: string[] | undefined;
  blockedOrigins?: string[] | undefined;
}

/**
 * The navigation filter for --allowed-origins / --blocked-origins, as the tools' checkUrl hook: why a URL may not be
 * opened, or undefined. Origins are compared lowercase; an opaque origin ("null": data:, about:blank) passes.
 */
export function originFilter(allowed: readonly string[] = [], blocked: readonly string[] = []): ((url: string) => string | undefined) | undefined {
  if (!allowed.length && !blocked.length) return undefined;
  return (url) => {
    let origin: string;
    try {
      origin = new URL(url).origin.toLowerCase();
    } catch {
      return undefined;
    }
    if (blocked.includes(origin)) return `${origin} is blocked by the gateway's --blocked-origins.`;
    if (allowed.length && !allowed.includes(origin) && origin !== 'null') {
      return `${origin} is not in the gateway's --allowed-origins (${allowed.join(', ')}).`;
    }
    return undefined;
  };
}

/** The session config these settings ask for; the same in a launched browser and in the extension. */
export function sessionConfigFrom(settings: ToolSettings): Partial<SessionConfig> {
  const checkUrl = originFilter(settings.allowedOrigins, settings.blockedOrigins);
  return {
    ...(settings.snapshotMaxChars !== undefined ? { snapshotMaxChars: settings.snapshotMaxChars } : {}),
    ...(checkUrl ? { checkUrl } : {}),
  };
}
