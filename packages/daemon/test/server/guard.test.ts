import { expect, it } from 'vitest';
import { guardRefusal, hostName, LOOPBACK_HOSTS } from '../../src/index.js';

// The one Host/Origin guard of the gateway and the daemon (pure logic; both servers' tests drive it over HTTP).
const rules = (hosts: string[] = [], origins: string[] = []) => ({ allowedHosts: new Set([...LOOPBACK_HOSTS, ...hosts]), corsOrigins: new Set(origins) });

it('reads a Host header as its name, without the port', () => {
  expect(hostName('Relay.Example.com:3463')).toBe('relay.example.com');
  expect(hostName('[::1]:8765')).toBe('[::1]');
  expect(hostName('[::1]')).toBe('[::1]');
  expect(hostName(undefined)).toBe('');
});

it('accepts loopback and the allowed names on any port; refuses other hosts naming the flag', () => {
  expect(guardRefusal({ host: '127.0.0.1:3456' }, rules())).toBeUndefined();
  expect(guardRefusal({ host: 'localhost' }, rules())).toBeUndefined();
  expect(guardRefusal({ host: 'relay.example.com:9999' }, rules(['relay.example.com']))).toBeUndefined();
  expect(guardRefusal({ host: 'evil.example:3456' }, rules(['relay.example.com']))).toBe(
    'Host "evil.example" is not allowed (DNS rebinding protection): reach this server as localhost or 127.0.0.1, or add the name with --allowed-hosts.',
  );
  expect(guardRefusal({}, rules())).toContain('Host "" is not allowed');
  // "*" turns the Host check off (a server behind a proxy that checks names itself).
  expect(guardRefusal({ host: 'anything.example' }, rules(['*']))).toBeUndefined();
});

it('lets callers without an Origin, the allowed origins and its own origin through; refuses other pages', () => {
  const r = rules([], ['https://app.example.com']);
  expect(guardRefusal({ host: '127.0.0.1:3456' }, r)).toBeUndefined();
  expect(guardRefusal({ host: '127.0.0.1:3456', origin: 'https://APP.example.com' }, r)).toBeUndefined();
  expect(guardRefusal({ host: '127.0.0.1:3456', origin: 'http://127.0.0.1:3456' }, r)).toBeUndefined();
  expect(guardRefusal({ host: '127.0.0.1:3456', origin: 'http://127.0.0.1:9999' }, r)).toContain('Origin http://127.0.0.1:9999 is not allowed');
  expect(guardRefusal({ host: '127.0.0.1:3456', origin: 'https://evil.example' }, r)).toBe(
    'Origin https://evil.example is not allowed: web apps that may call this server must be listed with --cors-origins.',
  );
  // "*" for hosts does not open the door to pages.
  expect(guardRefusal({ host: 'x.example', origin: 'https://evil.example' }, rules(['*']))).toContain('is not allowed');
});
