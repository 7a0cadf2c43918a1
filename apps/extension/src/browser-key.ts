// This browser's identity: an Ed25519 key pair made once per profile, whose private half Web Crypto keeps
// unexportable (so it never leaves the browser), and a browser id that is the hash of the public half
// (browserIdOfKey). A daemon, or anyone else, can then check that a hello or a hold proof comes from this browser;
// no one without the key can speak for its id.
import { browserIdOfKey, exportBrowserKey, signHold } from '@browsermcp/protocol';

export interface BrowserIdentity {
  /** The id the daemon knows this browser by (it gives a reconnecting browser its sessions back by it). */
  readonly id: string;
  /** The public key as the hello carries it: its 32 raw bytes in base64url. */
  readonly key: string;
  /** Signs that daemon instance `instance` held this browser at `at` (its clock, in ms) for `user`: a hold proof's `sig`. */
  sign(instance: string, at: number, user: string | null): Promise<string>;
}

// A CryptoKeyPair is structured-cloneable, unexportable private half included, so IndexedDB keeps it as it is
// (chrome.storage keeps only JSON, which would need the private half exported).
const DATABASE = 'browsermcp';
const STORE = 'keys';
const RECORD = 'browser';

let identity: Promise<BrowserIdentity> | undefined;

/** This browser's identity, made on the first call in this profile; every caller shares one promise, so one key. */
export function browserIdentity(): Promise<BrowserIdentity> {
  identity ??= loadIdentity().catch((error: unknown) => {
    // A failure (storage unavailable for a moment) is not remembered: the next connect tries again.
    identity = undefined;
    throw error;
  });
  return identity;
}

async function loadIdentity(): Promise<BrowserIdentity> {
  const db = await openDatabase();
  try {
    let pair = await storedPair(db);
    if (pair === undefined) {
      const fresh = await crypto.subtle.generateKey('Ed25519', false, ['sign', 'verify']);
      // Another page of the extension may have made one meanwhile: the first one stored stays.
      pair = await keepFirst(db, fresh);
      // The random id earlier versions kept is not this browser's id any more.
      await chrome.storage.local.remove('browserId');
    }
    const { privateKey, publicKey } = pair;
    // The public half of a generated pair is always exportable, whatever `extractable` said (that is the private's).
    const key = await exportBrowserKey(publicKey);
    const id = await browserIdOfKey(key);
    if (id === undefined) throw new Error('the browser key is not an Ed25519 public key');
    return { id, key, sign: (instance, at, user) => signHold(privateKey, id, instance, at, user) };
  } finally {
    db.close();
  }
}

function openDatabase(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DATABASE, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error(`cannot open IndexedDB "${DATABASE}"`));
  });
}

function isKeyPair(value: unknown): value is CryptoKeyPair {
  const pair = value as Partial<CryptoKeyPair> | undefined;
  return pair?.privateKey instanceof CryptoKey && pair.publicKey instanceof CryptoKey;
}

function storedPair(db: IDBDatabase): Promise<CryptoKeyPair | undefined> {
  return new Promise((resolve, reject) => {
    const request = db.transaction(STORE, 'readonly').objectStore(STORE).get(RECORD);
    request.onsuccess = () => resolve(isKeyPair(request.result) ? request.result : undefined);
    request.onerror = () => reject(request.error ?? new Error('cannot read the browser key'));
  });
}

/** Stores `fresh` unless a pair is there already, in one transaction (read-write ones on a store run one at a time). */
function keepFirst(db: IDBDatabase, fresh: CryptoKeyPair): Promise<CryptoKeyPair> {
  return new Promise((resolve, reject) => {
    const tx = db.transaction(STORE, 'readwrite');
    const store = tx.objectStore(STORE);
    let kept = fresh;
    const read = store.get(RECORD);
    read.onsuccess = () => {
      if (isKeyPair(read.result)) kept = read.result;
      else store.put(fresh, RECORD);
    };
    // Resolved once committed: a key not yet on disk must not name this browser to a daemon.
    tx.oncomplete = () => resolve(kept);
    tx.onerror = () => reject(tx.error ?? new Error('cannot store the browser key'));
    tx.onabort = () => reject(tx.error ?? new Error('storing the browser key was aborted'));
  });
}
