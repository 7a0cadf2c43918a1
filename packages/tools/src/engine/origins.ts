/**
 * --allowed-origins / --blocked-origins: which addresses pages may reach. Entries are spelled as @playwright/mcp takes
 * them (an origin `https://example.com`, an origin on any port `http://localhost:*`, a bare host name for any scheme
 * and port `example.com`), plus two classes of top-level documents that have no network origin: `data:` and `blob:`.
 */

import { canonicalHost, canonicalOrigin } from './hosts.js';

/** Why a URL may not be reached, or undefined: the tools' check on every request and navigation. */
export type UrlCheck = (url: string) => string | undefined;

type Pattern =
  | { kind: 'origin'; origin: string }
  | { kind: 'anyPort'; protocol: string; hostname: string }
  | { kind: 'host'; hostname: string }
  | { kind: 'class'; scheme: 'data:' | 'blob:' };

const CLASSES = ['data:', 'blob:'] as const;

/**
 * One list entry, normalized (lowercase, no path), or an Error that says what a valid entry looks like. Throws: a
 * command line turns it into its own error.
 */
export function parseOriginPattern(raw: string): string {
  return show(parse(raw));
}

function parse(raw: string): Pattern {
  const text = raw.trim().toLowerCase().replace(/\/+$/, '');
  const klass = CLASSES.find((c) => text === c || text === c.slice(0, -1));
  if (klass) return { kind: 'class', scheme: klass };
  const anyPort = /^(https?):\/\/([^/:]+):\*$/.exec(text);
  if (anyPort) return { kind: 'anyPort', protocol: `${anyPort[1]}:`, hostname: canonicalHost(anyPort[2]!) };
  if (text.includes('://')) {
    try {
      const url = new URL(text);
      // A path is dropped, as @playwright/mcp does: the lists are about origins.
      if (/^https?:$/.test(url.protocol) && /^[a-z0-9.-]+$|^\[[0-9a-f:.]+\]$/.test(url.hostname)) return { kind: 'origin', origin: canonicalOrigin(url) };
    } catch {
      /* said below */
    }
  } else if (/^[a-z0-9.-]+$/.test(text) && !text.startsWith('.')) {
    return { kind: 'host', hostname: canonicalHost(new URL(`http://${text}`).hostname) };
  }
  throw new Error(
    `"${raw}" is not an origin entry: use an origin (https://example.com), an origin on any port (http://localhost:*), a host name (example.com), data: or blob:.`,
  );
}

function show(p: Pattern): string {
  switch (p.kind) {
    case 'origin':
      return p.origin;
    case 'anyPort':
      return `${p.protocol}//${p.hostname}:*`;
    case 'host':
      return p.hostname;
    case 'class':
      return p.scheme;
  }
}

/** What a URL is checked as: its origin, or the class of a document with none of its own; undefined is not checked. */
type Subject = { kind: 'origin'; url: URL } | { kind: 'class'; scheme: 'data:' | 'blob:' };

function subjectOf(href: string): Subject | undefined {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return undefined;
  }
  if (url.protocol === 'data:' || url.protocol === 'blob:') return { kind: 'class', scheme: url.protocol };
  // about:blank, error pages, file: (its own flag): nothing that reaches a server.
  if (url.origin === 'null') return undefined;
  return { kind: 'origin', url };
}

function matches(p: Pattern, s: Subject): boolean {
  if (s.kind === 'class') return p.kind === 'class' && p.scheme === s.scheme;
  const url = s.url;
  // One host, however it is spelled (a trailing dot, an IPv4 address inside IPv6): see canonicalHost.
  switch (p.kind) {
    case 'origin':
      return canonicalOrigin(url) === p.origin;
    case 'anyPort':
      return url.protocol === p.protocol && canonicalHost(url.hostname) === p.hostname;
    case 'host':
      return canonicalHost(url.hostname) === p.hostname;
    case 'class':
      return false;
  }
}

/**
 * The check for these lists, or undefined when both are empty (nothing to check, nothing intercepted). The blocked list
 * is read first; with an allowed list, everything else is refused. Entries are parsed again here because they travel
 * as text to every host (the extension too); one a host cannot read matches nothing.
 */
export function originPolicy(allowed: readonly string[] = [], blocked: readonly string[] = []): UrlCheck | undefined {
  if (!allowed.length && !blocked.length) return undefined;
  const read = (list: readonly string[]) =>
    list.flatMap((entry) => {
      try {
        return [parse(entry)];
      } catch {
        return [];
      }
    });
  const allow = read(allowed);
  const block = read(blocked);
  return (href) => {
    const subject = subjectOf(href);
    if (!subject) return undefined;
    const name = subject.kind === 'class' ? `${subject.scheme} documents` : subject.url.origin;
    if (block.some((p) => matches(p, subject))) return `${name} ${subject.kind === 'class' ? 'are' : 'is'} blocked by the gateway's --blocked-origins.`;
    if (allowed.length && !allow.some((p) => matches(p, subject))) {
      return `${name} ${subject.kind === 'class' ? 'are' : 'is'} not in the gateway's --allowed-origins (${allowed.join(', ')}).`;
    }
    return undefined;
  };
}
