import { canonicalHost } from '@browsermcp/tools';

/**
 * Sites the person put off limits for agents in the options page (a bank, the mailbox): enforced here, in their
 * browser, whatever the gateway's flags say. A site is a host name (or an IP address); it covers its subdomains too.
 * Hosts are compared as the origin lists compare them (canonicalHost: case, trailing dots, IP spellings, punycode).
 */
export interface SiteList {
  sites: string[];
  /** One sentence per entry that is not a site, saying what a site looks like. */
  problems: string[];
}

const NAME = /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/;
const IPV6 = /^\[[0-9a-f:.]+\]$/;

/** The person's list as they typed it: one site per line (commas work too); `*.example.com` is example.com. */
export function parseSites(text: string): SiteList {
  const sites = new Set<string>();
  const problems: string[] = [];
  for (const line of text.split(/[\n,]+/)) {
    const entry = line.trim();
    if (!entry) continue;
    const host = siteOf(entry);
    if (host === undefined) {
      problems.push(`"${entry}" is not a site: write a host name such as mybank.com (its subdomains are included) or an IP address, one per line.`);
      continue;
    }
    sites.add(host);
  }
  return { sites: [...sites], problems };
}

/** The sites of a stored list; entries that are not sites are left out (the options page refuses to save them). */
export function normalizeSites(text: string): string[] {
  return parseSites(text).sites;
}

function siteOf(entry: string): string | undefined {
  // "*." says "and its subdomains", which every entry means; the URL parser would keep the star, escaped.
  const bare = entry.replace(/^\*\./, '');
  if (/\s/.test(bare)) return undefined;
  let hostname: string;
  try {
    hostname = new URL(bare.includes('://') ? bare : `http://${bare}`).hostname;
  } catch {
    return undefined;
  }
  const host = canonicalHost(hostname).replace(/^www\./, '');
  return NAME.test(host) || IPV6.test(host) ? host : undefined;
}

/** The entry of the person's list that covers this URL's host, or undefined. */
export function offLimitsSite(url: string, sites: readonly string[]): string | undefined {
  let host: string;
  try {
    host = canonicalHost(new URL(url).hostname);
  } catch {
    return undefined;
  }
  if (!host) return undefined;
  return sites.find((s) => host === s || host.endsWith(`.${s}`));
}

/** Why an agent may not open this URL (the person's off-limits list), or undefined. */
export function offLimits(url: string, sites: readonly string[]): string | undefined {
  const site = offLimitsSite(url, sites);
  if (site === undefined) return undefined;
  return `The person has put ${site} off limits for agents (browsermcp options page): do not open it; ask the person if the task needs it.`;
}
