import type { TreeNode } from './yaml.js';

/**
 * A link's url resolved as the browser follows it; '' for a link without one (a role="link" element, an <a> without
 * href) or one that does not resolve it (an SVG <a>, whose url stays written).
 */
function resolvedUrl(node: TreeNode): string {
  const href = node.url !== undefined ? (node.el as HTMLAnchorElement).href : undefined;
  return typeof href === 'string' ? href : '';
}

/** Whether same-named links all lead to one place: the same written url, else the same url resolved. */
function oneUrl(named: TreeNode[]): boolean {
  const first = named[0]!.url;
  if (named.every((node) => node.url === first)) return true;
  const resolved = resolvedUrl(named[0]!);
  return named.every((node) => resolvedUrl(node) === resolved);
}

/**
 * Whether a written url is relative and cannot leave the base's origin: a fragment, a query, a path from the root
 * (not `//host` or `/\\host`, which name another host), or a path segment before any `:`. Tabs and line breaks are
 * dropped by the URL parser (`/\t/host` reads `//host`), and leading spaces trimmed: such urls are resolved instead.
 */
const STAYS_ON_ORIGIN = /^(?:[#?]|\/(?![/\\])|[\w.~%!$&'()*+,;=@-]+(?:[/?#]|$))/;
function staysOnOrigin(url: string): boolean {
  return STAYS_ON_ORIGIN.test(url) && !/[\t\n\r]/.test(url);
}

/**
 * Drops the url of the links where it tells the reader nothing their name does not. It stays where the link has no
 * name, leads to another origin or scheme, or shares its name with a link to elsewhere; elsewhere it repeats the
 * name (a 3,000-row table of links is 8 % smaller without). browser_find shows every url.
 */
export function pruneUrls(links: TreeNode[]): void {
  const byName = new Map<string, TreeNode[]>();
  for (const node of links) {
    const named = byName.get(node.name);
    if (named) named.push(node);
    else byName.set(node.name, [node]);
  }
  const here = `${location.origin}/`;
  // Where the document's base is on its origin, a plain relative url stays on it: resolving each link's url (the
  // href getter) was a twentieth of a big book's walk.
  const plainBase = document.baseURI.startsWith(here);
  for (const [name, named] of byName) {
    if (!name || !oneUrl(named)) continue;
    const only = named[0]!;
    if (only.url === undefined) continue;
    if ((plainBase && only.el instanceof HTMLElement && staysOnOrigin(only.url)) || resolvedUrl(only).startsWith(here))
      for (const node of named) node.url = undefined;
  }
}
