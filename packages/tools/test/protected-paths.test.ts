import { expect, it } from 'vitest';
import { fileUrlRefusal } from '../src/engine/protected-paths.js';
import { normalizeUrl } from '../src/tools/common.js';

const refusal = (url: string, own: string[] = []) => fileUrlRefusal(new URL(url), own);

it("refuses file: URLs onto the kernel's files however they are spelled", () => {
  for (const url of [
    'file:///proc/self/environ',
    'file:////proc/self/environ',
    'file:///%70roc/self/environ',
    'file:///tmp/../proc/1/cmdline',
    'file:///sys',
    'file:///dev/',
    'file://localhost/proc/self/environ',
  ]) {
    expect(refusal(url), url).toContain("the system's view of processes and devices");
  }
});

it("refuses the server's own files and what is inside its own folders, and nothing beside them", () => {
  const own = ['/srv/bmcp/keys', '/srv/bmcp/profile/'];
  expect(refusal('file:///srv/bmcp/keys', own)).toContain("one of this server's own files");
  expect(refusal('file:///srv/bmcp/profile/Default/Cookies', own)).toContain("one of this server's own files");
  expect(refusal('file:///srv/bmcp/keys2', own)).toBeUndefined();
  expect(refusal('file:///srv/bmcp/profile-old/x', own)).toBeUndefined();
  expect(refusal('file:///procedures.txt')).toBeUndefined();
  expect(refusal('https://example.com/proc/self/environ')).toBeUndefined();
});

it('is checked by the URL every navigation goes through, with file: URLs allowed', () => {
  expect(() => normalizeUrl('file:///proc/self/environ', { allowUnrestrictedFileAccess: true })).toThrow("the system's view of processes and devices");
  expect(() => normalizeUrl('file:///srv/bmcp/keys', { allowUnrestrictedFileAccess: true, protectedPaths: ['/srv/bmcp/keys'] })).toThrow(
    "one of this server's own files",
  );
  expect(normalizeUrl('file:///srv/site/index.html', { allowUnrestrictedFileAccess: true, protectedPaths: ['/srv/bmcp/keys'] })).toBe(
    'file:///srv/site/index.html',
  );
});
