import { Kvm } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { KvRouterStore } from '../../src/index';
import { NatsServer } from '@browsermcp/testkit';
import { describeRouterStore } from '../helpers/store-contract';
import { randomBytes } from 'node:crypto';
import { RecordSigner } from '../../src/cluster/record-signatures';
import type { StoredSession } from '../../src/cluster/session-versions';
import { SealedRecords } from '../../src/cluster/sealed-records';
import { UserProofs } from '../../src/cluster/user-proofs';
import { listKeys } from '../../src/cluster/keys';
import { CLOCK_SKEW_MS, VERSION_LIFETIME_MS } from '../../src/cluster/session-versions';

/** What another instance wrote reaches this one's copy within milliseconds (its watch): waited for, not slept. */
const eventually = (check: () => Promise<void>) => vi.waitFor(check, { timeout: 5_000, interval: 20 });

/** Whether `key` holds a value (not deleted). */
async function live(kv: Awaited<ReturnType<Kvm['open']>>, key: string): Promise<boolean> {
  return (await kv.get(key))?.operation === 'PUT';
}

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
  const signing = instanceId === undefined ? undefined : { instanceId, signer: new RecordSigner() };
  const store = new KvRouterStore(kv, () => false, signing);
  await store.publishSigningKey();
  // A daemon's store follows the sessions with a watch (a signed one here); the contract's stores read the bucket.
  if (instanceId !== undefined) await store.start();
  return store;
}

describeRouterStore('KvRouterStore (JetStream KV)', () => storeOn(`contract_${++bucket}`));

it('lets exactly one of two daemons create or delete a session when they race, and one of two sessions claim a tab', async () => {
  const name = `race_${++bucket}`;
  const [one, two] = [await storeOn(name), await storeOn(name)];
  for (let round = 0; round < 10; round++) {
    const created = await Promise.all([
      one.createSession({ sessionId: `s${round}`, executorId: 'b' }),
      two.createSession({ sessionId: `s${round}`, executorId: 'b' }),
    ]);
    expect(created.filter(Boolean)).toHaveLength(1);
    await one.createSession({ sessionId: `t${round}`, executorId: 'b' });
    // Tabs are claimed by the instance that holds their browser (held-tabs.ts).
    const owners = await Promise.all([one.claimTab(`s${round}`, `tab${round}`), one.claimTab(`t${round}`, `tab${round}`)]);
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

it("sees what another daemon wrote; a browser's tabs are its holder's to claim, release and check, and the session's current tab is its server's", async () => {
  const name = `shared_${++bucket}`;
  const [server, holder] = [await storeOn(name), await storeOn(name)];
  await server.createSession({ sessionId: 'S', executorId: 'ext', userId: 'alice' });
  await server.createSession({ sessionId: 'T', executorId: 'ext', userId: 'alice' });
  expect(await holder.claimTab('S', '7')).toBe('S');
  expect(await holder.claimTab('T', '7')).toBe('S');
  expect(await holder.listTabs('S')).toEqual(['7']);
  // Not in the bucket: the server neither sees nor releases the holder's claims.
  expect(await server.getTabOwner('ext', '7')).toBeUndefined();
  expect(await server.releaseTab('ext', '7')).toBeUndefined();
  await server.setCurrentTab('S', '7');
  expect(await holder.getSession('S')).toEqual({ sessionId: 'S', executorId: 'ext', userId: 'alice', currentTabId: '7' });
  // The tab closed: the holder forgets it.
  expect(await holder.releaseTab('ext', '7')).toBe('S');
  expect(await holder.getTabOwner('ext', '7')).toBeUndefined();
  // A claim of a session that ended elsewhere does not keep its tab from another session, and the sweep drops it.
  expect(await holder.claimTab('S', '8')).toBe('S');
  expect(await holder.claimTab('S', '9')).toBe('S');
  await server.deleteSession('S');
  expect(await holder.claimTab('T', '8')).toBe('T');
  expect(await holder.pruneTabs()).toBe(1);
  expect(await holder.getTabOwner('ext', '9')).toBeUndefined();
  expect(await holder.getTabOwner('ext', '8')).toBe('T');
});

it('signs the records an instance serves: they verify after its restarts (its last 8 keys), a rewrite or a record naming another does not', async () => {
  const name = `signed_${++bucket}`;
  const a = await storeOn(name, 'a');
  const b = await storeOn(name, 'b');
  await a.createSession({ sessionId: 'by-a', executorId: 'laptop', servedBy: 'a', settings: { maxTabs: 3 } });
  // b writes a record naming a (it signs only records naming itself): not a's, nor anyone's; b's open says so.
  expect(await b.createSession({ sessionId: 'naming-a', executorId: 'laptop', servedBy: 'a' })).toBe(false);
  await b.createSession({ sessionId: 'by-b', executorId: 'laptop', servedBy: 'b' });
  // A session b's copy has not seen yet is read from the bucket.
  expect(await b.getVerifiedSession('by-a')).toMatchObject({ verified: true, record: { sessionId: 'by-a', settings: { maxTabs: 3 } } });
  expect(await b.getVerifiedSession('naming-a')).toBeUndefined();
  await eventually(async () => expect((await a.listVerifiedSessions('laptop')).map((s) => s.sessionId).sort()).toEqual(['by-a', 'by-b']));
  // The current tab is written into a version by its own instance only; the record still verifies.
  await b.setCurrentTab('by-a', '7');
  expect((await b.getSession('by-a'))?.currentTabId).toBeUndefined();
  await a.setCurrentTab('by-a', '7');
  await eventually(async () => expect(await b.getVerifiedSession('by-a')).toMatchObject({ verified: true, record: { currentTabId: '7' } }));
  // b takes it up: its own version, an epoch above a's, and a's is outranked.
  const checked = (await b.getSession('by-a'))!;
  expect(await b.setServedBy('by-a', 'b', checked)).toBe(true);
  await eventually(async () =>
    expect(await a.getVerifiedSession('by-a')).toMatchObject({ verified: true, record: { servedBy: 'b', settings: { maxTabs: 3 } } }),
  );
  const raw = await new Kvm(connections.at(-1)!).open(name);
  expect((await listKeys(raw, 's.*.YnktYQ')).sort()).toEqual(['s.a.YnktYQ', 's.b.YnktYQ']);
  expect(await b.tidySessions()).toBe(0);
  expect(await a.tidySessions()).toBe(1);
  expect(await live(raw, 's.a.YnktYQ')).toBe(false);
  // A take-up only of the session the taker checked: not once its settings changed.
  const now = (await a.getSession('by-a'))!;
  expect(await a.setServedBy('by-a', 'a', { ...now, settings: { maxTabs: 9 } })).toBe(false);
  expect(await a.setServedBy('by-a', 'a', now)).toBe(true);
  await eventually(async () => expect(await b.tidySessions()).toBe(1));

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
  expect(await again.getVerifiedSession('by-a')).toMatchObject({ verified: false, record: { sessionId: 'by-a' } });
  // Nobody's session any more, not even one to clean up; a deletes it.
  expect(await again.getSessionUnchecked('by-a')).toBeUndefined();
  expect(await again.tidySessions()).toBe(1);
});

it('ends a session with a tombstone that outranks every version, also one kept and written back, and opens it again under its id', async () => {
  const name = `ended_${++bucket}`;
  const [a, b, c] = [await storeOn(name, 'a'), await storeOn(name, 'b'), await storeOn(name, 'c')];
  const raw = await new Kvm(connections.at(-1)!).open(name);
  await a.createSession({ sessionId: 'S', executorId: 'laptop', servedBy: 'a' });
  expect(await b.setServedBy('S', 'b', (await b.getSession('S'))!)).toBe(true);
  const kept = (await raw.get('s.b.Uw'))!.string();
  await eventually(async () => expect(await c.getSession('S')).toMatchObject({ servedBy: 'b' }));
  // A second take-up of the same version, or an end, after another came first: refused, not both.
  const [one, two] = await Promise.all([a.setServedBy('S', 'a', (await a.getSession('S'))!), c.deleteSession('S')]);
  expect([one, two !== undefined].filter(Boolean)).toHaveLength(1);
  if (one) expect(await c.deleteSession('S')).toMatchObject({ sessionId: 'S' });
  for (const store of [a, b, c]) {
    await eventually(async () => {
      expect(await store.getSession('S')).toBeUndefined();
      expect(await store.getSessionUnchecked('S')).toBeUndefined();
      expect(await store.listAllSessions()).toEqual([]);
    });
  }
  expect(await b.setServedBy('S', 'b')).toBe(false);
  expect(await c.deleteSession('S')).toBeUndefined();
  // Each instance deletes its own outranked versions; the tombstone stays, even alone, while a kept one could count.
  await a.tidySessions();
  await b.tidySessions();
  expect(await c.tidySessions()).toBe(0);
  for (const key of ['s.a.Uw', 's.b.Uw']) expect(await live(raw, key)).toBe(false);
  // b's version, kept and written back by b's credentials: the tombstone outranks it.
  await raw.put('s.b.Uw', kept);
  await eventually(async () => expect((await listKeys(raw, 's.*.Uw')).length).toBeGreaterThan(1));
  for (const store of [a, b, c]) expect(await store.getSession('S')).toBeUndefined();
  await raw.delete('s.b.Uw');
  // Opened again under its id: after every version of before, whatever their epochs; the tombstone then goes.
  expect(await a.createSession({ sessionId: 'S', executorId: 'laptop', servedBy: 'a' })).toBe(true);
  await eventually(async () => expect(await c.getSession('S')).toMatchObject({ servedBy: 'a' }));
  expect(await a.createSession({ sessionId: 'S', executorId: 'laptop', servedBy: 'a' })).toBe(false);
  await eventually(async () => expect(await c.tidySessions()).toBe(1));
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
  await a.start();
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
  // Nobody's session, not even one to clean up: another daemon's own writing.
  expect(await a.getSessionUnchecked('no-user')).toBeUndefined();
  // a's record, its proof kept, re-signed by b naming b under another agent name: the proof covers the whole record.
  const original = (await kv.get('s.a.YnktYQ'))!.json<StoredSession>();
  // Whose it is, its agent and settings are sealed: the store shows the session, its browser, its server and epoch.
  expect(Object.keys(original).sort()).toEqual(['epoch', 'executorId', 'notAfter', 'opening', 'sealed', 'servedBy', 'sessionId', 'signature', 'userProof']);
  // a's record, its proof kept, re-signed by b as its own version of a higher epoch, naming b under another agent
  // name: the proof covers the whole record, so a's version stays the session's.
  await kv.put('s.b.YnktYQ', JSON.stringify(signerOfB.sign({ ...original, servedBy: 'b', epoch: 2, agent: 'user alice (trusted)' } as StoredSession)));
  expect(await a.getSession('by-a')).toMatchObject({ servedBy: 'a', agent: 'user alice' });
  // The same, its proof and all unchanged but for the server: not proven either.
  await kv.put('s.b.YnktYQ', JSON.stringify(signerOfB.sign({ ...original, servedBy: 'b' })));
  expect(await a.getSession('by-a')).toMatchObject({ servedBy: 'a' });
  // Its sealed part moved into b's own session on the same browser: it opens for that session only.
  await kv.put(
    's.b.Ynktc2VjcmV0cw',
    JSON.stringify(signerOfB.sign({ sessionId: 'by-secrets', executorId: 'local-a', servedBy: 'b', sealed: original.sealed })),
  );
  expect(await a.getVerifiedSession('by-secrets')).toMatchObject({
    verified: false,
    record: { sessionId: 'by-secrets', executorId: 'local-a', servedBy: 'b' },
  });
  expect(await a.getSession('by-secrets')).toBeUndefined();
  // a's own record, secrets and all.
  expect(await a.getSession('by-a')).toMatchObject({ agent: 'user alice', userId: 'alice', settings: { secrets: { PIN: '1234' } } });
});

it('renews the versions an instance serves before their time runs out; one that ran out is renewed only as this process wrote it, or while a client here drives it, else ended', async () => {
  const name = `renewed_${++bucket}`;
  const [a, b] = [await storeOn(name, 'a'), await storeOn(name, 'b')];
  const raw = await new Kvm(connections.at(-1)!).open(name);
  const notAfter = async (key: string) => (await raw.get(key))!.json<StoredSession>().notAfter!;
  const start = Date.now();
  const nobody = () => false;
  // Only the clock moves; NATS and its timers run as they do.
  vi.useFakeTimers({ toFake: ['Date'], now: start });
  try {
    await a.createSession({ sessionId: 'driven', executorId: 'laptop', servedBy: 'a' });
    await a.createSession({ sessionId: 'left', executorId: 'laptop', servedBy: 'a' });
    expect(await notAfter('s.a.bGVmdA')).toBe(start + VERSION_LIFETIME_MS);
    // More than half its time left: not written again.
    vi.setSystemTime(start + VERSION_LIFETIME_MS / 4);
    expect(await a.renewSessions(nobody)).toEqual({ renewed: 0, lapsed: [] });
    vi.setSystemTime(start + (VERSION_LIFETIME_MS * 3) / 4);
    expect(await a.renewSessions(nobody)).toEqual({ renewed: 2, lapsed: [] });
    expect(await notAfter('s.a.bGVmdA')).toBe(start + (VERSION_LIFETIME_MS * 7) / 4);
    // a stalls past their time (away from NATS, suspended): no one believes them, but they are not lost.
    vi.setSystemTime(start + (VERSION_LIFETIME_MS * 7) / 4 + CLOCK_SKEW_MS + 1);
    await eventually(async () => expect(await b.getSession('left')).toBeUndefined());
    expect(await b.getSessionUnchecked('left')).toMatchObject({ sessionId: 'left', servedBy: 'a' });
    expect(await b.setServedBy('left', 'b')).toBe(false);
    expect(await a.tidySessions()).toBe(0);
    // Back (a suspended machine), a renews both: this process wrote them as they are, so they are no copy written
    // back, whether a client drives them (a WebSocket) or calls now and then (the HTTP API, a kept state).
    expect(await a.renewSessions(nobody)).toEqual({ renewed: 2, lapsed: [] });
    await eventually(async () => expect(await b.getSession('left')).toMatchObject({ servedBy: 'a' }));
    // Another process of instance a (restarted) did not write them: past their time, it renews the one its client
    // drives and hands the other to its sweep to end (tombstone, tabs).
    const restarted = await storeOn(name, 'a');
    vi.setSystemTime(Date.now() + VERSION_LIFETIME_MS + CLOCK_SKEW_MS + 1);
    await eventually(async () => expect(await b.getSession('driven')).toBeUndefined());
    expect(await restarted.renewSessions((sessionId) => sessionId === 'driven')).toEqual({ renewed: 1, lapsed: ['left'] });
    await eventually(async () => expect(await b.getSession('driven')).toMatchObject({ servedBy: 'a' }));
    expect(await restarted.deleteSession('left')).toMatchObject({ sessionId: 'left' });
    await eventually(async () => expect(await b.getSessionUnchecked('left')).toBeUndefined());
  } finally {
    vi.useRealTimers();
  }
});

it('lets one of two daemons that open the same id at once have it, and a take-up overtaken by another ask again', async () => {
  const name = `races_${++bucket}`;
  const [a, b, c] = [await storeOn(name, 'a'), await storeOn(name, 'b'), await storeOn(name, 'c')];
  for (let round = 0; round < 10; round++) {
    const id = `same-${round}`;
    const opened = await Promise.all([a, b].map((store, i) => store.createSession({ sessionId: id, executorId: 'laptop', servedBy: 'ab'[i]! })));
    expect(opened.filter(Boolean)).toHaveLength(1);
    // Two calls of its client reaching two daemons at once (a load balancer): one takes it up; one that another
    // overtook is told so, for its router to ask whether a client drives it there, then takes it up as it now is.
    const session = (await c.getSession(id)) ?? (await c.getVerifiedSession(id))?.record;
    const taken = await Promise.all([a, c].map((store, i) => store.setServedBy(id, 'ac'[i]!, session)));
    expect(taken).toContain(true);
    for (const [i, store] of [a, c].entries()) {
      if (taken[i]) continue;
      const now = await vi.waitFor(async () => (await store.getSession(id))!, { timeout: 5_000, interval: 20 });
      expect(now.servedBy).not.toBe(session?.servedBy);
      expect(await store.setServedBy(id, 'ac'[i]!, now)).toBe(true);
    }
    expect(['a', 'c']).toContain((await b.getVerifiedSession(id))?.record.servedBy ?? (await b.getSessionUnchecked(id))?.servedBy);
  }
  // Served by a, checked by c; b takes it up meanwhile: c's take-up of what it checked is refused (before, it took the
  // session from b without asking whether b's client drives it).
  await a.createSession({ sessionId: 'overtaken', executorId: 'laptop', servedBy: 'a' });
  const checked = await vi.waitFor(async () => (await c.getSession('overtaken'))!, { timeout: 5_000, interval: 20 });
  expect(await b.setServedBy('overtaken', 'b', checked)).toBe(true);
  expect(await c.setServedBy('overtaken', 'c', checked)).toBe(false);
  await eventually(async () => expect((await c.getVerifiedSession('overtaken'))?.record.servedBy).toBe('b'));
});

it("keeps a kept state as each instance's part: its own holders, another's dropped only by a live instance's word", async () => {
  const name = `parts_${++bucket}`;
  const [a, b] = [await storeOn(name, 'a'), await storeOn(name, 'b')];
  const raw = await new Kvm(connections.at(-1)!).open(name);
  const holdersIn = async (key: string) => (await raw.get(key))!.json<{ holders: unknown[] }>().holders;
  await a.createSession({ sessionId: 'X', executorId: 'laptop', servedBy: 'a' });
  const state = { handle: 'h1', owner: 'key-1', sessionId: 'X', keepMs: 60_000, holders: [{ id: 'on-a', instance: 'a' }] };
  expect(await a.createState(state)).toBe(true);
  await eventually(async () => expect(await b.getState('key-1')).toEqual(state));
  expect(await b.createState({ ...state, handle: 'h2' })).toBe(false);
  // b's client takes it: b's own part holds b's holder; a's part is a's.
  const taken = await b.updateState('key-1', 'h1', (s) => ({ ...s, holders: [...s.holders, { id: 'on-b', instance: 'b' }] }));
  expect(taken?.holders).toEqual([
    { id: 'on-a', instance: 'a' },
    { id: 'on-b', instance: 'b' },
  ]);
  expect(await holdersIn('k.b.a2V5LTE')).toEqual([{ id: 'on-b', instance: 'b' }]);
  expect(await holdersIn('k.a.a2V5LTE')).toEqual([{ id: 'on-a', instance: 'a' }]);
  // a's client leaves: still held by b's.
  const left = await a.updateState('key-1', 'h1', (s) => ({ ...s, holders: s.holders.filter((h) => h.id !== 'on-a') }));
  expect(left).toMatchObject({ holders: [{ id: 'on-b' }] });
  expect(left).not.toHaveProperty('idleSince');
  // b dies: a's sweep drops its holders, as a's own part says; idle from then, not from when a's client left.
  const before = Date.now();
  const idle = await a.updateState('key-1', 'h1', (s) => ({ ...s, holders: [], idleSince: Date.now() }));
  expect(idle).toMatchObject({ holders: [] });
  expect(idle?.idleSince).toBeGreaterThanOrEqual(before);
  expect(await holdersIn('k.b.a2V5LTE')).toEqual([{ id: 'on-b', instance: 'b' }]);
  // b was alive after all (a took it for dead): its tidy writes its part again, and its holder counts again.
  expect(await b.tidyStates()).toEqual({ deleted: 0, superseded: [] });
  expect((await a.getState('key-1'))?.holders).toEqual([{ id: 'on-b', instance: 'b' }]);
  // b starts again under its id: its old process's holders are gone, its part idle from then.
  const restarted = await storeOn(name, 'b');
  expect(await holdersIn('k.b.a2V5LTE')).toEqual([]);
  expect(await a.getState('key-1')).toMatchObject({ holders: [], idleSince: expect.any(Number) });
  await restarted.updateState('key-1', 'h1', (s) => ({ ...s, holders: [{ id: 'on-b-again', instance: 'b' }] }));
  expect((await a.getState('key-1'))?.holders).toEqual([{ id: 'on-b-again', instance: 'b' }]);
  // Its session closed, the state is none, and each instance deletes its own part at its tidy.
  await a.deleteSession('X');
  await eventually(async () => expect(await b.getState('key-1')).toBeUndefined());
  expect(await a.listStates()).toEqual([]);
  expect(await restarted.tidyStates()).toEqual({ deleted: 1, superseded: [] });
  expect(await a.tidyStates()).toEqual({ deleted: 1, superseded: [] });
  for (const key of ['k.a.a2V5LTE', 'k.b.a2V5LTE']) expect(await live(raw, key)).toBe(false);
});

it('shares a secret as the first daemon that asked made it: each writes only its own, and a later one changes nothing', async () => {
  const name = `secrets_${++bucket}`;
  const [a, b] = [await storeOn(name, 'a'), await storeOn(name, 'b')];
  const raw = await new Kvm(connections.at(-1)!).open(name);
  const made = await a.sharedSecret('state-owners');
  expect(made).toHaveLength(32);
  expect(await b.sharedSecret('state-owners')).toEqual(made);
  expect(await live(raw, 'x.b.c3RhdGUtb3duZXJz')).toBe(false);
  // b's own key written later (b's seed, or a race lost): the first made still holds; junk is nobody's secret.
  await raw.put('x.b.c3RhdGUtb3duZXJz', Buffer.alloc(32, 7).toString('base64url'));
  await raw.put('x.c.c3RhdGUtb3duZXJz', 'not-a-secret');
  expect(await b.sharedSecret('state-owners')).toEqual(made);
  expect(await a.sharedSecret('state-owners')).toEqual(made);
});

it('leaves one of two states kept for one owner at once; the other instance closes its session at its tidy', async () => {
  const name = `keeps_${++bucket}`;
  const [a, b] = [await storeOn(name, 'a'), await storeOn(name, 'b')];
  for (let round = 0; round < 5; round++) {
    const owner = `owner-${round}`;
    await a.createSession({ sessionId: `on-a-${round}`, executorId: 'laptop', servedBy: 'a' });
    await b.createSession({ sessionId: `on-b-${round}`, executorId: 'laptop', servedBy: 'b' });
    await eventually(async () => expect(await a.getSession(`on-b-${round}`)).toBeDefined());
    const kept = (store: KvRouterStore, on: string) =>
      store.createState({ handle: `h-${on}`, owner, sessionId: `on-${on}-${round}`, keepMs: 60_000, holders: [{ id: on, instance: on }] });
    const created = await Promise.all([kept(a, 'a'), kept(b, 'b')]);
    expect(created).toContain(true);
    const winner = (await a.getState(owner))!.handle;
    expect((await b.getState(owner))?.handle).toBe(winner);
    // A create that answered true and lost is told at its tidy, which closes its session; one that answered false
    // deleted its part at once.
    const tidied = await Promise.all([a.tidyStates(), b.tidyStates()]);
    for (const [i, on] of ['a', 'b'].entries()) {
      const lost = `h-${on}` !== winner;
      expect(tidied[i]!.superseded).toEqual(lost && created[i] ? [`on-${on}-${round}`] : []);
    }
  }
});
