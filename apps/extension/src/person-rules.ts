import type { SessionSettings } from '@browsermcp/protocol';
import { sessionConfigFrom } from '@browsermcp/tools';
import { refusalFor } from './attach.js';
import { offLimits, offLimitsSite } from './offlimits.js';

/**
 * What the person lets agents do in every session at once: the sites they put off limits (options page) and whether
 * agents may see and call the tools sites offer (WebMCP, off until they turn it on). Each session's tool config is
 * the gateway's settings with these before them.
 */
export class PersonRules {
  offLimitSites: string[] = [];
  pageToolsAllowed = false;

  /** Reads the person's WebMCP setting. */
  async readPageTools(): Promise<void> {
    const { allowPageTools } = await chrome.storage.local.get('allowPageTools');
    this.pageToolsAllowed = allowPageTools === true;
  }

  /** A session's tool config: the gateway's settings, and the person's off-limits sites before them. */
  configFor(settings: SessionSettings): ReturnType<typeof sessionConfigFrom> {
    const config = sessionConfigFrom(settings);
    const gateway = config.checkUrl;
    return {
      ...config,
      // Sites' own tools: only when the gateway has them on and the person allowed them.
      webmcp: config.webmcp !== false && this.pageToolsAllowed,
      checkUrl: (url) => offLimits(url, this.offLimitSites) ?? gateway?.(url),
    };
  }

  /** Why an agent may not see `url` (the entry of the person's list), or undefined. */
  offLimits(url: string): string | undefined {
    return offLimits(url, this.offLimitSites);
  }

  /** The entry of the person's list that keeps `url` out, or undefined. */
  offLimitsSite(url: string): string | undefined {
    return offLimitsSite(url, this.offLimitSites);
  }

  /** Whether the person may share this tab with an agent: a web page agents may reach. */
  shareable(url: string): boolean {
    return /^https?:/i.test(url) && !refusalFor(url) && !this.offLimits(url);
  }
}
