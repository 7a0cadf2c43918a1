/**
 * A host name as a site is compared, in the origin lists and the person's off-limits sites: lowercase, without the
 * trailing dots DNS ignores ("bank.example." is bank.example), and an IPv4 address mapped into IPv6
 * ([::ffff:127.0.0.1], which the URL parser writes [::ffff:7f00:1]) as that IPv4 address. The URL parser has already
 * written other IPv4 spellings (2130706433, 0x7f.1) in dotted form and Unicode names in punycode.
 */
export function canonicalHost(hostname: string): string {
  const host = hostname.toLowerCase().replace(/\.+$/, '');
  const mapped = /^\[::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/.exec(host);
  if (!mapped) return host;
  const high = parseInt(mapped[1]!, 16);
  const low = parseInt(mapped[2]!, 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

/** A URL's origin with its host canonical (see canonicalHost). */
export function canonicalOrigin(url: URL): string {
  return `${url.protocol}//${canonicalHost(url.hostname)}${url.port ? `:${url.port}` : ''}`;
}
