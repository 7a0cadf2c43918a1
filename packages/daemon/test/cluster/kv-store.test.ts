import { Kvm } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { KvRouterStore } from '../../src/index';
import { NatsServer } from '@browsermcp/testkit';
import { describeRouterStore } from '../helpers/store-contract';
import { randomBytes } from 'node:crypto';
import { RecordSigner, type SignedRecord } from '../../src/cluster/record-signatures';
import { SealedRecords } from '../../src/cluster/sealed-records';
import { UserProofs } from '../../src/cluster/user-proofs';

let nats: NatsServer;
const connections: NatsConnection[] = [];
let bucket = 0;

beforeAll(async () => {
  nats = await NatsServer.start();
});

afterAll(async () => {
  for (const nc of connections) await nc.close();
  await nats.close();
});

/** A store on its own connection (as another daemon would have) over the bucket `name`; signing as `instanceId`. */
async function storeOn(name: string, instanceId?: string): Promise<KvRouterStore> {
  const nc = await connect({ servers: nats.url });
  connections.push(nc);
  const kv = await new Kvm(nc).create(name, { history: 1 });
  const store = new KvRouterStore(kv, () => false, instanceId === undefined ? undefined : { instanceId, signer: new RecordSigner() });
  await store.publishSigningKey();
  return store;
}

describeRouterStore('KvRouterStore (JetStream KV)', () => storeOn(`contract_${++bucket}`));

it('lets exactly one of two daemons create a session, claim a tab or delete a session when they race', async () => {
  const name = `race_${++bucket}`;
  const [one, two] = [await storeOn(name), await storeOn(name)];
  for (let round = 0; round < 10; round++) {
    const created = await Promise.all([
      one.createSession({ sessionId: `s${round}`, executorId: 'b' }),
      two.createSession({ sessionId: `s${round}`, executorId: 'b' }),
    ]);
    expect(created.filter(Boolean)).toHaveLength(1);
    await one.createSession({ sessionId: `t${round}`, executorId: 'b' });
    const owners = await Promise.all([one.claimTab(`s${round}`, `tab${round}`), two.claimTab(`t${round}`, `tab${round}`)]);
    expect(owners[0]).toBe(owners[1]);
    const deleted = await Promise.all([one.deleteSession(`s${round}`), two.deleteSession(`s${round}`)]);
    expect(deleted.filter((d) => d !== undefined)).toHaveLength(1);
  }
});

it('keeps ids that NATS keys could not hold (dots, spaces, wildcards, non-ASCII) apart and intact', async () => {
  const store = await storeOn(`ids_${++bucket}`);
  const ids = ['a.b', 'a b', '*', '>', 'é-ü', 'a.>'];
  for (const id of ids) expect(await store.createSession({ sessionId: id, executorId: `x.${id}` })).toBe(true);
  for (const id of ids) expect(await store.claimTab(id, `tab.${id}`)).toBe(id);
  expect((await store.listSessions()).map((s) => s.sessionId).sort()).toEqual([...ids].sort());
  expect(await store.listTabs('a.>')).toEqual(['tab.a.>']);
  expect((await store.listSessions('x.*')).map((s) => s.sessionId)).toEqual(['*']);
});

it('sees what another daemon wrote, and a current tab set by one is cleared when the other releases it', async () => {
  const name = `shared_${++bucket}`;
  const [one, two] = [await storeOn(name), await storeOn(name)];
  await one.createSession({ sessionId: 'S', executorId: 'ext', userId: 'alice' });
  expect(await two.claimTab('S', '7')).toBe('S');
  await two.setCurrentTab('S', '7');
  expect(await one.getSession('S')).toEqual({ sessionId: 'S', executorId: 'ext', userId: 'alice', currentTabId: '7' });
  expect(await one.releaseTab('ext', '7')).toBe('S');
  expect((await two.getSession('S'))?.currentTabId).toBeUndefined();
});

it('signs the records an instance serves: they verify after its restarts (its last 8 keys), a rewrite or a record naming another does not', async () => {
  const name = `signed_${++bucket}`;
  const a = await storeOn(name, 'a');
  const b = await storeOn(name, 'b');
  await a.createSession({ sessionId: 'by-a', executorId: 'laptop', servedBy: 'a', settings: { maxTabs: 3 } });
  // b writes a record naming a (it signs only records naming itself): not a's.
  await b.createSession({ sessionId: 'naming-a', executorId: 'laptop', servedBy: 'a' });
  await b.createSession({ sessionId: 'by-b', executorId: 'laptop', servedBy: 'b' });
  expect(await b.getVerifiedSession('by-a')).toMatchObject({ verified: true, record: { sessionId: 'by-a', settings: { maxTabs: 3 } } });
  expect(await b.getVerifiedSession('naming-a')).toMatchObject({ verified: false });
  expect((await a.listVerifiedSessions('laptop')).map((s) => s.sessionId).sort()).toEqual(['by-a', 'by-b']);
  // The current tab is the browser's to write: the record still verifies; its server's next write keeps it signed.
  await b.setCurrentTab('by-a', '7');
  expect(await b.getVerifiedSession('by-a')).toMatchObject({ verified: true, record: { currentTabId: '7' } });
  // b takes it up: now b's.
  const checked = (await b.getSession('by-a'))!;
  await b.setServedBy('by-a', 'b', checked);
  expect(await a.getVerifiedSession('by-a')).toMatchObject({ verified: true, record: { servedBy: 'b' } });
  // An older record of the session, believed (its server signed it), written back after a taker checked the session:
  // the taker does not sign over it.
  const raw = await new Kvm(connections.at(-1)!).open(name);
  const older = (await raw.get('s.YnktYQ'))!.string();
  await b.setCurrentTab('by-a', undefined);
  const now = (await a.getSession('by-a'))!;
  await a.deleteSession('by-a');
  await a.createSession({ sessionId: 'by-a', executorId: 'laptop', servedBy: 'a', settings: { maxTabs: 9 } });
  const rechecked = (await a.getSession('by-a'))!;
  await raw.put('s.YnktYQ', older);
  expect(await a.setServedBy('by-a', 'a', rechecked)).toBe(false);
  expect(await a.setServedBy('by-a', 'a', now)).toBe(true);

  // a starts again (a new key): what it signed before still verifies, up to its last 8 starts.
  // (Read each time by a daemon that just started: others read an instance's keys again within a minute.)
  let again = a;
  for (let start = 1; start <= 7; start++) again = await storeOn(name, 'a');
  expect(await (await storeOn(name, 'c')).getVerifiedSession('by-a')).toMatchObject({ verified: true });
  again = await storeOn(name, 'a');
  expect(await (await storeOn(name, 'c')).getVerifiedSession('by-a')).toMatchObject({ verified: false });
  // Nor is it signed anew by a take-up, even by the instance it names: what no key vouches for any more (or another
  // daemon wrote under its name) is not signed over. Its client opens a new session.
  expect(await again.setServedBy('by-a', 'a')).toBe(false);
  expect(await again.getSession('by-a')).toBeUndefined();
  expect(await again.getSessionUnchecked('by-a')).toMatchObject({ sessionId: 'by-a' });
});

it('believes a record, with a user or without, only as proven by a daemon holding the token secret, and as it was proven', async () => {
  const name = `proofs_${++bucket}`;
  const secret = randomBytes(32);
  const nc = await connect({ servers: nats.url });
  connections.push(nc);
  const kv = await new Kvm(nc).create(name, { history: 1 });
  const withSecret = (instanceId: string) => ({
    instanceId,
    signer: new RecordSigner(),
    userProofs: new UserProofs(secret),
    sealedRecords: new SealedRecords(secret),
  });
  const a = new KvRouterStore(kv, () => false, withSecret('a'));
  await a.publishSigningKey();
  // b's NATS credentials alone: it signs as b (it may publish b's keys), it has no token secret.
  const signerOfB = new RecordSigner();
  const seedOfB = new KvRouterStore(kv, () => false, { instanceId: 'b', signer: signerOfB });
  await seedOfB.publishSigningKey();

  await a.createSession({
    sessionId: 'by-a',
    executorId: 'local-a',
    servedBy: 'a',
    agent: 'user alice',
    userId: 'alice',
    settings: { secrets: { PIN: '1234' } },
  });
  expect(await a.getSession('by-a')).toMatchObject({ agent: 'user alice', settings: { secrets: { PIN: '1234' } } });
  // A session of b's making on a's launched browser, with no user (before, only a record with a user needed a proof).
  await seedOfB.createSession({ sessionId: 'no-user', executorId: 'local-a', servedBy: 'b' });
  expect(await a.getSession('no-user')).toBeUndefined();
  expect(await a.getSessionUnchecked('no-user')).toMatchObject({ servedBy: 'b' });
  // a's record, its proof kept, re-signed by b naming b under another agent name: the proof covers the whole record.
  const original = (await kv.get('s.YnktYQ'))!.json<SignedRecord>();
  // Whose it is, its agent and settings are sealed: the store shows the session, its browser and its server.
  expect(Object.keys(original).sort()).toEqual(['executorId', 'sealed', 'servedBy', 'sessionId', 'signature', 'userProof']);
  await kv.put('s.YnktYQ', JSON.stringify(signerOfB.sign({ ...original, servedBy: 'b', agent: 'user alice (trusted)' })));
  expect(await a.getSession('by-a')).toBeUndefined();
  // Its sealed part moved into b's own session on the same browser: it opens for that session only.
  await kv.put('s.Ynktc2VjcmV0cw', JSON.stringify(signerOfB.sign({ sessionId: 'by-secrets', executorId: 'local-a', servedBy: 'b', sealed: original.sealed })));
  expect(await a.getSessionUnchecked('by-secrets')).toEqual({ sessionId: 'by-secrets', executorId: 'local-a', servedBy: 'b' });
  expect(await a.getSession('by-secrets')).toBeUndefined();
  // a's own record back: believed, secrets and all.
  await kv.put('s.YnktYQ', JSON.stringify(original));
  expect(await a.getSession('by-a')).toMatchObject({ agent: 'user alice', userId: 'alice', settings: { secrets: { PIN: '1234' } } });
});
