import { describe, expect, it } from 'vitest';
import { offLimits, offLimitsSite, parseSites } from '../src/offlimits.js';
import { blockedPageHtml } from '../src/blocked-page.js';

describe("the person's off-limits sites", () => {
  it('reads one site per line, as the person may write it', () => {
    const { sites, problems } = parseSites('MyBank.com\n*.evil.test\nhttps://mail.example.org/inbox\nwww.shop.example\n127.0.0.1\nbücher.example,\n\n');
    expect(problems).toEqual([]);
    expect(sites).toEqual(['mybank.com', 'evil.test', 'mail.example.org', 'shop.example', '127.0.0.1', 'xn--bcher-kva.example']);
  });

  it('refuses an entry that is not a site, saying what one looks like, instead of splitting it into words', () => {
    const { sites, problems } = parseSites('mybank.com\nnot a site!\nbad_host$');
    expect(sites).toEqual(['mybank.com']);
    expect(problems).toEqual([
      '"not a site!" is not a site: write a host name such as mybank.com (its subdomains are included) or an IP address, one per line.',
      '"bad_host$" is not a site: write a host name such as mybank.com (its subdomains are included) or an IP address, one per line.',
    ]);
  });

  it('holds on every spelling of a listed host: case, trailing dot, subdomains, IP spellings, punycode', () => {
    const { sites } = parseSites('localhost\n*.evil.test\n127.0.0.1\nbücher.example');
    for (const url of [
      'http://bank.localhost.:3499/',
      'http://LOCALHOST/',
      'https://a.b.evil.test/',
      'http://evil.test./',
      'http://[::ffff:127.0.0.1]:8080/',
      'http://2130706433/',
      'https://xn--bcher-kva.example/',
      'https://shop.bücher.example/',
    ]) {
      expect(offLimits(url, sites), url).toMatch(/^The person has put \S+ off limits for agents/);
    }
    for (const url of ['https://notevil.test/', 'http://127.0.0.2/', 'https://example.com/?next=evil.test']) expect(offLimits(url, sites), url).toBeUndefined();
  });

  it('names the entry that covers a URL, and the page that tells the person carries it with the address (no query)', () => {
    const sites = parseSites('*.evil.test\n127.0.0.1').sites;
    expect(offLimitsSite('https://A.b.evil.test./login', sites)).toBe('evil.test');
    expect(offLimitsSite('http://[::ffff:127.0.0.1]:8080/', sites)).toBe('127.0.0.1');
    expect(offLimitsSite('https://notevil.test/', sites)).toBeUndefined();
    // Written into a page with no origin (no extension privileges for the agent that acts there next), without the query.
    const html = blockedPageHtml('https://a.evil.test/login?token=secret#x', 'evil.<b>test</b>');
    expect(html).toContain('tried to open <code>https://a.evil.test/login</code>');
    expect(html).not.toContain('token=secret');
    expect(html).toContain('<strong>evil.&#60;b&#62;test&#60;/b&#62;</strong>');
    expect(html).not.toMatch(/<script|<a |chrome-extension:/i);
  });
});
