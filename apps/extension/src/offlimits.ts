/**
 * Sites the person put off limits for agents in the options page (a bank, the mailbox): enforced here, in their
 * browser, whatever the gateway's flags say. A site is a host name; it covers its subdomains too.
 */
export function normalizeSites(text: string): string[] {
  const sites = new Set<string>();
  for (const raw of text.split(/[\s,]+/)) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    let host = entry;
    try {
      host = new URL(entry.includes('://') ? entry : `http://${entry}`).hostname;
    } catch {
      continue;
    }
    sites.add(host.replace(/^\*\./, '').replace(/^www\./, ''));
  }
  return [...sites];
}

/** Why an agent may not open this URL (the person's off-limits list), or undefined. */
export function offLimits(url: string, sites: readonly string[]): string | undefined {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return undefined;
  }
  if (!host) return undefined;
  const site = sites.find((s) => host === s || host.endsWith(`.${s}`) || host === `www.${s}`);
  if (site === undefined) return undefined;
  return `The person has put ${site} off limits for agents (browsermcp options page): do not open it; ask the person if the task needs it.`;
}
