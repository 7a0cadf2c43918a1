import type { Approval } from './approvals.js';

/**
 * The person's answer for each open session, kept where a browser restart does not erase it (chrome.storage.local;
 * the sessions themselves live in chrome.storage.session, which a restart clears): an agent allowed once is not asked
 * again in the same session when its browser comes back. Bounded: the oldest answers go first.
 */
const KEY = 'sessionApprovals';
const MAX = 200;

type Stored = Record<string, 'allowed' | 'denied'>;

async function read(): Promise<Stored> {
  const value = (await chrome.storage.local.get(KEY))[KEY] as unknown;
  return value && typeof value === 'object' ? (value as Stored) : {};
}

export async function rememberApproval(sessionId: string, approval: 'allowed' | 'denied'): Promise<void> {
  const stored = await read();
  delete stored[sessionId];
  stored[sessionId] = approval;
  const ids = Object.keys(stored);
  for (const id of ids.slice(0, Math.max(0, ids.length - MAX))) delete stored[id];
  await chrome.storage.local.set({ [KEY]: stored });
}

export async function recallApproval(sessionId: string): Promise<Approval | undefined> {
  const approval = (await read())[sessionId];
  return approval === 'allowed' || approval === 'denied' ? approval : undefined;
}

export async function forgetApproval(sessionId: string): Promise<void> {
  const stored = await read();
  if (!(sessionId in stored)) return;
  delete stored[sessionId];
  await chrome.storage.local.set({ [KEY]: stored });
}
