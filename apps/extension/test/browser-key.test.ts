import type { webcrypto } from 'node:crypto';
import { browserIdOfKey, holdStatement } from '@browsermcp/protocol';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectExtension, startExtensionHarness, waitFor, type ExtensionHarness } from './harness.js';

// The browser's own key, with the real extension and a daemon that asks it for hold proofs as a cluster's does.
const INSTANCE = 'instance-x';
let h: ExtensionHarness;
let browserId: string;

beforeAll(async () => {
  h = await startExtensionHarness({ holdProofsFor: INSTANCE });
  // The random id an earlier version kept: the key, made at the first connect, replaces it.
  await (await h.control()).evaluate(() => chrome.storage.local.set({ browserId: 'ext-earlier-version' }));
  browserId = await connectExtension(h);
});
afterAll(async () => {
  await h?.close();
});

// What of IndexedDB the page below uses (the tests are typed for Node, without the DOM's types).
interface IdbRequest<T> {
  result: T;
  error: unknown;
  onsuccess: (() => void) | null;
  onerror: (() => void) | null;
}
interface Database {
  transaction(store: string, mode: 'readonly'): { objectStore(store: string): { get(key: string): IdbRequest<unknown> } };
  close(): void;
}
type KeyPair = { publicKey: webcrypto.CryptoKey; privateKey: webcrypto.CryptoKey };
type ExtensionPage = { indexedDB: { open(name: string): IdbRequest<Database> } };

/** The browser's key pair as the extension keeps it (IndexedDB of the extension's origin, read from its options page). */
async function storedKey(): Promise<{ key: string; privateExtractable: boolean; privateExport: string }> {
  const page = await h.control();
  return page.evaluate(async () => {
    const open = (globalThis as unknown as ExtensionPage).indexedDB.open('browsermcp');
    const db = await new Promise<Database>((resolve, reject) => {
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error);
    });
    const read = db.transaction('keys', 'readonly').objectStore('keys').get('browser');
    const pair = await new Promise<KeyPair>((resolve, reject) => {
      read.onsuccess = () => resolve(read.result as KeyPair);
      read.onerror = () => reject(read.error);
    });
    db.close();
    const raw = new Uint8Array(await crypto.subtle.exportKey('raw', pair.publicKey));
    const key = btoa(String.fromCharCode(...raw))
      .replace(/\+/g, '-')
      .replace(/\//g, '_')
      .replace(/=+$/, '');
    const privateExport = await crypto.subtle.exportKey('pkcs8', pair.privateKey).then(
      () => 'exported',
      (error: Error) => error.name,
    );
    return { key, privateExtractable: pair.privateKey.extractable, privateExport };
  });
}

it('connects under the hash of its own key, whose private half cannot be exported', async () => {
  const stored = await storedKey();
  expect(await browserIdOfKey(stored.key)).toBe(browserId);
  expect(stored.privateExtractable).toBe(false);
  expect(stored.privateExport).toBe('InvalidAccessError');
  // The random id the earlier version kept is not used, and is gone.
  expect(browserId).not.toBe('ext-earlier-version');
  expect(await (await h.control()).evaluate(() => chrome.storage.local.get('browserId'))).toEqual({});
});

it("signs the daemon's hold proof with that key", async () => {
  await waitFor(async () => h.daemon.browsermcp.extensions.records.get(browserId)?.hold !== undefined, 'the first hold proof');
  const hold = h.daemon.browsermcp.extensions.records.get(browserId)!.hold!;
  // The key the hello carried is the one the extension keeps, and its hash is the id it connected with.
  expect(hold.key).toBe((await storedKey()).key);
  expect(await browserIdOfKey(hold.key)).toBe(browserId);
  // Judged by the signature itself, not by the daemon having kept it.
  const publicKey = await crypto.subtle.importKey('raw', Buffer.from(hold.key, 'base64url'), 'Ed25519', false, ['verify']);
  const sig = Buffer.from(hold.sig, 'base64url');
  expect(await crypto.subtle.verify('Ed25519', publicKey, sig, holdStatement(browserId, INSTANCE, hold.at, null))).toBe(true);
  // And for that statement only: another instance, or another instant, is not what it signed.
  expect(await crypto.subtle.verify('Ed25519', publicKey, sig, holdStatement(browserId, 'instance-y', hold.at, null))).toBe(false);
  expect(await crypto.subtle.verify('Ed25519', publicKey, sig, holdStatement(browserId, INSTANCE, hold.at + 1, null))).toBe(false);
});
