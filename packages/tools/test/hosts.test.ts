import { describe, expect, it } from 'vitest';
import { canonicalHost, originPolicy } from '../src/index.js';

const hostOf = (url: string) => canonicalHost(new URL(url).hostname);

describe('one host however it is spelled', () => {
  it('drops the trailing dots DNS ignores and lowercases', () => {
    expect(hostOf('http://Bank.Example.:8080/')).toBe('bank.example');
    expect(hostOf('http://localhost../')).toBe('localhost');
  });

  it('reads an IPv4 address inside IPv6, and the other IPv4 spellings the URL parser knows, as dotted IPv4', () => {
    expect(hostOf('http://[::ffff:127.0.0.1]:3000/')).toBe('127.0.0.1');
    expect(hostOf('http://[::FFFF:7f00:1]/')).toBe('127.0.0.1');
    expect(hostOf('http://2130706433/')).toBe('127.0.0.1');
    expect(hostOf('http://0x7f.1/')).toBe('127.0.0.1');
    expect(hostOf('http://[::1]/')).toBe('[::1]');
  });

  it('keeps Unicode names in punycode, as the URL parser writes them', () => {
    expect(hostOf('https://bücher.example/')).toBe('xn--bcher-kva.example');
  });

  it('holds the origin lists on every spelling of a blocked host', () => {
    const check = originPolicy([], ['http://localhost:3000', 'blocked.example', 'http://127.0.0.1:*'])!;
    for (const url of [
      'http://localhost.:3000/x',
      'http://LOCALHOST:3000/',
      'https://blocked.example./',
      'http://[::ffff:127.0.0.1]:9/',
      'http://2130706433:80/',
    ]) {
      expect(check(url), url).toMatch(/is blocked by the gateway's --blocked-origins/);
    }
    expect(check('http://localhost:3001/')).toBeUndefined();
    const only = originPolicy(['https://shop.example'])!;
    expect(only('https://shop.example./cart')).toBeUndefined();
    expect(only('https://other.example/')).toMatch(/not in the gateway's --allowed-origins/);
  });
});
