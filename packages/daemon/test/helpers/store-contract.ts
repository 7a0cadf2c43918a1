import { describe, expect, it } from 'vitest';
import type { RouterStore } from '../../src/index';

/**
 * What every RouterStore must do, run against the in-memory store and the cluster's KV store alike. `makeStore`
 * gives an empty store.
 */
export function describeRouterStore(name: string, makeStore: () => Promise<RouterStore>): void {
  async function storeWithSessions(): Promise<RouterStore> {
    const store = await makeStore();
    await store.createSession({ sessionId: 'A', executorId: 'browser-1' });
    await store.createSession({ sessionId: 'B', executorId: 'browser-1' });
    await store.createSession({ sessionId: 'C', executorId: 'browser-2' });
    return store;
  }

  describe(name, () => {
    it('creates a session only if none with that id exists', async () => {
      const store = await storeWithSessions();
      expect(await store.createSession({ sessionId: 'A', executorId: 'browser-2' })).toBe(false);
      expect(await store.getSession('A')).toEqual({ sessionId: 'A', executorId: 'browser-1' });
    });

    it('lists the sessions of one executor', async () => {
      const store = await storeWithSessions();
      expect((await store.listSessions('browser-1')).map((session) => session.sessionId).sort()).toEqual(['A', 'B']);
      expect(await store.listSessions()).toHaveLength(3);
    });

    it('gives a free tab to the claiming session and reports the owner of a taken one', async () => {
      const store = await storeWithSessions();
      expect(await store.claimTab('A', '12')).toBe('A');
      expect(await store.claimTab('B', '12')).toBe('A');
      expect(await store.getTabOwner('browser-1', '12')).toBe('A');
    });

    it('claims nothing for a session that does not exist', async () => {
      const store = await storeWithSessions();
      expect(await store.claimTab('nobody', '12')).toBeUndefined();
      expect(await store.getTabOwner('browser-1', '12')).toBeUndefined();
    });

    it("keeps tabs in their session's browser, so two browsers may both have a tab 12", async () => {
      const store = await storeWithSessions();
      expect(await store.claimTab('A', '12')).toBe('A');
      expect(await store.claimTab('C', '12')).toBe('C');
      expect(await store.getTabOwner('browser-2', '12')).toBe('C');
    });

    it("releases a session's tabs when the session is deleted", async () => {
      const store = await storeWithSessions();
      await store.claimTab('A', '1');
      await store.claimTab('B', '2');
      expect(await store.deleteSession('A')).toEqual({ sessionId: 'A', executorId: 'browser-1' });
      expect(await store.getTabOwner('browser-1', '1')).toBeUndefined();
      expect(await store.listTabs('B')).toEqual(['2']);
    });

    it("clears a session's current tab when that tab is released", async () => {
      const store = await storeWithSessions();
      await store.claimTab('A', '1');
      await store.setCurrentTab('A', '1');
      expect(await store.releaseTab('browser-1', '1')).toBe('A');
      expect((await store.getSession('A'))?.currentTabId).toBeUndefined();
    });

    it('replaces a session record rather than changing one a caller holds', async () => {
      const store = await storeWithSessions();
      const before = await store.getSession('A');
      await store.setCurrentTab('A', '1');
      expect(before?.currentTabId).toBeUndefined();
      expect((await store.getSession('A'))?.currentTabId).toBe('1');
    });

    it('records which instance serves a session, keeping the rest of its record', async () => {
      const store = await storeWithSessions();
      await store.setCurrentTab('A', '3');
      expect(await store.setServedBy('A', 'east-1')).toBe(true);
      expect(await store.getSession('A')).toEqual({ sessionId: 'A', executorId: 'browser-1', currentTabId: '3', servedBy: 'east-1' });
      expect(await store.setServedBy('nobody', 'east-1')).toBe(false);
    });

    it('keeps one browser state per owner, changed only under its handle', async () => {
      const store = await storeWithSessions();
      const state = { handle: 'h1', owner: 'key-hash-1', sessionId: 'A', keepMs: 60_000, holders: [{ id: 'c1', instance: 'east-1' }] };
      expect(await store.createState(state)).toBe(true);
      expect(await store.createState({ ...state, handle: 'h2' })).toBe(false);
      expect(await store.updateState('key-hash-1', 'h2', (s) => ({ ...s, holders: [] }))).toBeUndefined();
      expect(await store.updateState('key-hash-1', 'h1', (s) => ({ ...s, holders: [], idleSince: 5 }))).toMatchObject({ holders: [], idleSince: 5 });
      expect(await store.getState('key-hash-1')).toEqual({ ...state, holders: [], idleSince: 5 });
      expect(await store.listStates()).toHaveLength(1);
      expect(await store.updateState('key-hash-1', 'h1', () => undefined)).toBeUndefined();
      expect(await store.getState('key-hash-1')).toBeUndefined();
      expect(await store.listStates()).toEqual([]);
    });
  });
}
