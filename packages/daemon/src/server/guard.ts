/**
 * The one Host/Origin guard of every browsermcp HTTP server (the gateway's and the daemon's). A Host the server is not
 * reached by is refused (DNS rebinding); so is a browser Origin that is not allowed (a web page must not drive the
 * browser). Callers without an Origin (curl, scripts, Node clients) pass, and so does the server's own origin: it
 * serves no pages, so nothing hostile runs there.
 */
export interface GuardRules {
  /** Host names accepted (lower case, without port: any port matches); "*" accepts every Host. */
  readonly allowedHosts: ReadonlySet<string>;
  /** Browser origins allowed to call (lower case). */
  readonly corsOrigins: ReadonlySet<string>;
}

/** The names every server accepts: loopback by name and by address. */
export const LOOPBACK_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

/** The Host names a server accepts: loopback, and `extra` (names or host:port, any case; "*" for any). */
export function allowedHostNames(extra: readonly string[]): Set<string> {
  return new Set([...LOOPBACK_HOSTS, ...extra.map(hostName)]);
}

/** The host name of a Host header, lower case and without its port ("[::1]:8765" → "[::1]"). */
export function hostName(host: string | undefined): string {
  if (!host) return '';
  const h = host.toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1);
  const colon = h.lastIndexOf(':');
  return colon === -1 ? h : h.slice(0, colon);
}

/** Why a request must be refused (403), in words that name the flag to change; undefined when it may pass. */
export function guardRefusal(headers: { host?: string | undefined; origin?: string | undefined }, rules: GuardRules): string | undefined {
  const host = hostName(headers.host);
  if (!rules.allowedHosts.has('*') && !rules.allowedHosts.has(host)) {
    return `Host "${host}" is not allowed (DNS rebinding protection): reach this server as localhost or 127.0.0.1, or add the name with --allowed-hosts.`;
  }
  const origin = headers.origin?.toLowerCase();
  if (origin === undefined || rules.corsOrigins.has(origin)) return undefined;
  if (origin === `http://${headers.host?.toLowerCase()}` || origin === `https://${headers.host?.toLowerCase()}`) return undefined;
  return `Origin ${headers.origin} is not allowed: web apps that may call this server must be listed with --cors-origins.`;
}
