import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClusterNames, EXTENSION_ID, startDaemon, type RunningDaemon, writeNatsClusterFiles } from '@browsermcp/daemon';
import { browserIdOfKey, formatPairingCode, type HoldProof, holdStatement, newPairingSecret, parseBrowserEntry } from '@browsermcp/protocol';
import { Kvm } from '@nats-io/kv';
import { connect, nkeyAuthenticator } from '@nats-io/transport-node';
import { type FixtureServer, launchExtensionBrowser, NatsServer, openExtensionPage, startFixtureServer } from '@browsermcp/testkit';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DIST, refIn, textOf, waitFor } from './harness.js';

// The real extension in a cluster: it pairs with daemon a of two on a real nats-server (least-privilege nkey users,
// as `browsermcp-daemon nats-config` writes them); an agent's session on daemon b drives it through NATS. b believes
// that a holds the browser only with the browser's own signature (prove_hold → hold_proof), so this is the path a
// person's browser takes in every cluster.
const names = new ClusterNames();
/** a asks the browser for a new proof this often (at most the protocol's 30 s), so a renewal shows within the test. */
const RENEW_MS = 2_000;
const NO_PROOF = 'no proof from the browser itself';

let keys: string | undefined;
let nats: NatsServer | undefined;
let a: RunningDaemon | undefined;
let b: RunningDaemon | undefined;
let server: FixtureServer | undefined;
let browser: Browser | undefined;
/** The extension's options page: chrome.* calls from the extension's own origin, as in harness.ts. */
let control: Page;
let reader: NatsReader | undefined;
let browserId: string;
const logsOfB: string[] = [];

beforeAll(async () => {
  keys = mkdtempSync(join(tmpdir(), 'bmcp-ext-cluster-'));
  const files = writeNatsClusterFiles({ dir: join(keys, 'nats'), instances: ['a', 'b'] });
  nats = await NatsServer.start({ config: readFileSync(files.config, 'utf8') });
  const seed = (instanceId: string) => readFileSync(files.seeds[instanceId]!, 'utf8');
  // Loopback daemons without auth: the extension pairs (the CLI's setup on one machine), so its user is null. The
  // daemons of one cluster share the pairing secret, as they share cluster-bench's pairing file.
  const pairingSecret = newPairingSecret();
  const daemon = (instanceId: string, log?: (line: string) => void) =>
    startDaemon({
      host: '127.0.0.1',
      port: 0,
      local: null,
      extensionIds: [EXTENSION_ID],
      pairingSecret,
      holdProofRenewMs: RENEW_MS,
      ...(log ? { logger: { level: 'warn', stream: { write: log } } } : {}),
      cluster: { nats: nats!.url, instanceId, credentials: { nkeySeed: seed(instanceId) }, heartbeatMs: 250 },
    });
  a = await daemon('a');
  b = await daemon('b', (line) => logsOfB.push(line));
  server = await startFixtureServer();
  browser = await launchExtensionBrowser(DIST);

  // Paired with a, as a person pasting a's pairing code into the extension would.
  const daemonUrl = `ws://127.0.0.1:${new URL(a.address).port}/extension`;
  control = await openExtensionPage(browser, EXTENSION_ID, 'options.html');
  await control.evaluate(
    (url, code) => chrome.storage.local.set({ daemonUrl: url, pairingCode: code, paused: false, askBeforeNewAgents: false }),
    daemonUrl,
    formatPairingCode({ url: daemonUrl, secret: pairingSecret }),
  );
  await waitFor(async () => connectedTo(a!) !== undefined, 'the extension to connect to a (its hello and first hold proof)', 30_000);
  browserId = connectedTo(a!)!;
  reader = await directoryReader(nats.url, seed('b'));
});

afterAll(async () => {
  await browser?.close();
  await reader?.close();
  await b?.close();
  await a?.close();
  await nats?.close();
  await server?.close();
  if (keys) rmSync(keys, { recursive: true, force: true });
});

/** The id of the browser connected to daemon `d` now, if one is. */
function connectedTo(d: RunningDaemon): string | undefined {
  return [...d.app.browsermcp.extensions.records.values()].find((record) => record.connection !== null)?.id;
}

/** Whether the browser's key signed that `instanceId` held it at the proof's instant, without a user. */
async function signedFor(hold: HoldProof, instanceId: string): Promise<boolean> {
  const key = await crypto.subtle.importKey('raw', Buffer.from(hold.key, 'base64url'), 'Ed25519', false, ['verify']);
  return crypto.subtle.verify('Ed25519', key, Buffer.from(hold.sig, 'base64url'), holdStatement(browserId, instanceId, hold.at, null));
}

interface NatsReader {
  /** a's directory entry for the browser, as b's credentials read it from the cluster's bucket. */
  entryOnA(): Promise<unknown>;
  close(): Promise<void>;
}

/** A NATS client with b's seed, reading the directory b reads. */
async function directoryReader(url: string, seed: string): Promise<NatsReader> {
  const nc = await connect({ servers: url, authenticator: nkeyAuthenticator(new TextEncoder().encode(seed.trim())), inboxPrefix: names.inboxPrefix('b') });
  const bucket = await new Kvm(nc).open(names.browsersBucket);
  return {
    entryOnA: async () => (await bucket.get(names.browserKey('a', browserId)))?.json<unknown>(),
    close: () => nc.close(),
  };
}

/** a's entry for the browser, read and checked as the directory's schema. */
async function entryOnA() {
  const parsed = parseBrowserEntry(await reader!.entryOnA());
  if (!parsed.ok) throw new Error(`a's directory entry does not parse: ${parsed.message}`);
  return parsed.value;
}

it("is held by a in b's eyes, on the hold proof the extension signed with its own key", async () => {
  // Connected to a only; b knows of it only through the directory.
  expect(connectedTo(b!)).toBeUndefined();
  await expect
    .poll(() => b!.cluster!.browsersFor(null), { timeout: 10_000 })
    .toContainEqual({ id: browserId, name: expect.any(String), connected: true, instance: 'a' });

  const entry = await entryOnA();
  expect(entry).toMatchObject({ id: browserId, instanceId: 'a', kind: 'extension', userId: null, connected: true });
  expect(entry.hold).toBeDefined();
  const hold = entry.hold!;
  // The key is the browser's (its id is the key's hash), and it signed that a, not b, held the browser then.
  expect(await browserIdOfKey(hold.key)).toBe(browserId);
  expect(await signedFor(hold, 'a')).toBe(true);
  expect(await signedFor(hold, 'b')).toBe(false);
  expect(Math.abs(Date.now() - hold.at)).toBeLessThan(60_000);
  // b never set a's entry aside for want of a proof (it logs each such entry once).
  expect(logsOfB.filter((line) => line.includes(NO_PROOF))).toEqual([]);
});

it('keeps b believing it with renewed proofs, each signed by the browser', async () => {
  const first = (await entryOnA()).hold!;
  let renewed: HoldProof | undefined;
  await waitFor(
    async () => {
      renewed = (await entryOnA()).hold;
      return renewed !== undefined && renewed.at > first.at;
    },
    'a renewed hold proof in the directory',
    4 * RENEW_MS + 5_000,
  );
  expect(renewed!.key).toBe(first.key);
  expect(await signedFor(renewed!, 'a')).toBe(true);
  expect(b!.cluster!.browsersFor(null)).toContainEqual(expect.objectContaining({ id: browserId, connected: true, instance: 'a' }));
  expect(logsOfB.filter((line) => line.includes(NO_PROOF))).toEqual([]);
});

it("lets an agent on b drive the person's browser on a: the page itself shows what it did", async () => {
  const session = 'agent-on-b';
  await b!.router.openSession(session, { executorId: browserId, clientName: 'Agent on b' });
  const url = server!.url('/form.html?from-b');
  const nav = textOf(await b!.router.dispatch(session, { name: 'browser_navigate', payload: { url } }));
  expect(nav).toContain('- Page Title: Form');
  await b!.router.dispatch(session, { name: 'browser_type', payload: { target: refIn(nav, 'textbox "Name"'), text: 'Ada via b' } });
  await b!.router.dispatch(session, { name: 'browser_click', payload: { target: refIn(nav, 'button "Submit"') } });

  // Judged by the page in the person's Chromium, read over this test's own DevTools connection, not by the tools'
  // answers: the form's submit handler wrote what it was sent.
  const page = (await browser!.pages()).find((p) => p.url() === url);
  expect(page).toBeDefined();
  const out = await page!.evaluate("document.getElementById('out').textContent");
  expect(JSON.parse(String(out))).toMatchObject({ name: 'Ada via b' });
  // The agent's tab is in its session's group in that browser, named after its client on b.
  await expect.poll(() => control.evaluate(() => chrome.tabGroups.query({}).then((groups) => groups.map((g) => g.title)))).toContain('Agent on b');
});
