import { expect, it } from 'vitest';
import { MAX_TABS_PER_BROWSER, TabOwners } from '../../src/router/tab-owners';

it("keeps claims for at most MAX_TABS_PER_BROWSER tabs of one browser, and frees a dead owner's tab for another", () => {
  const owners = new TabOwners();
  const live = new Set(['s1', 's2']);
  const isLive = (sessionId: string) => live.has(sessionId);
  for (let i = 0; i < MAX_TABS_PER_BROWSER; i++) expect(owners.claim('laptop', 's1', `t${i}`, isLive)).toBe('s1');
  expect(() => owners.claim('laptop', 's1', 'one-more', isLive)).toThrow('close some of its sessions');
  // A tab already claimed is answered as before; another browser has room of its own.
  expect(owners.claim('laptop', 's2', 't0', isLive)).toBe('s1');
  expect(owners.claim('desktop', 's2', 't0', isLive)).toBe('s2');
  // s1 ended: its tab goes to the session that claims it; one released leaves room.
  live.delete('s1');
  expect(owners.claim('laptop', 's2', 't1', isLive)).toBe('s2');
  expect(owners.release('laptop', 't2')).toBe('s1');
  expect(owners.claim('laptop', 's2', 'one-more', isLive)).toBe('s2');
  expect(owners.list('laptop', 's2').sort()).toEqual(['one-more', 't1']);
  owners.forget('laptop', 's1');
  expect(owners.list('laptop', 's1')).toEqual([]);
  expect([...owners.entries()]).toHaveLength(3);
});
