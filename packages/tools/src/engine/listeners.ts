import type { Frame } from 'puppeteer-core';
import { pressTarget } from '../injected/listeners.js';
import { INJECTED_KEY } from '../injected/key.js';
import { frameContext } from './cdp.js';
import { inPage } from './in-page.js';

/**
 * Listeners added by script, read through DevTools where the page cannot be given the console's `getEventListeners`
 * (Chrome gives it to no extension: the person's browser). One DOMDebugger call lists every listener of the document
 * with the node it sits on; the nodes that listen for a press are marked in the page for the walk
 * (injected/listeners.ts). Done only when the page changed since the last marks.
 */

/** More elements than this listening for a press are not all marked (each costs a round trip). */
const MOST_MARKED = 500;
const GROUP = 'browsermcp-listeners';

export async function markPressListeners(frame: Frame): Promise<void> {
  if (!(await inPage(frame, 'listenerMarksStale'))) return;
  const target = frameContext(frame);
  if (!target) return;
  const { client, contextId } = target;
  try {
    const { result } = await client.send('Runtime.evaluate', { expression: 'document', contextId, objectGroup: GROUP });
    if (!result.objectId) return;
    const { listeners } = await client.send('DOMDebugger.getEventListeners', { objectId: result.objectId, depth: -1, pierce: true });
    const kinds = new Map<number, Set<string>>();
    for (const l of listeners) {
      if (l.backendNodeId === undefined) continue;
      let set = kinds.get(l.backendNodeId);
      if (!set) kinds.set(l.backendNodeId, (set = new Set()));
      set.add(l.type);
    }
    const pressed = [...kinds].filter(([, types]) => pressTarget(types)).slice(0, MOST_MARKED);
    const objects = await Promise.all(
      pressed.map(([backendNodeId]) =>
        client.send('DOM.resolveNode', { backendNodeId, executionContextId: contextId, objectGroup: GROUP }).then(
          (r) => r.object.objectId,
          // A node of another frame's document (pierce crosses into same-process frames): that frame marks its own.
          () => undefined,
        ),
      ),
    );
    await client.send('Runtime.callFunctionOn', {
      objectId: result.objectId,
      functionDeclaration: 'function (key, ...elements) { globalThis[Symbol.for(key)].markPressed(elements.filter((e) => e instanceof Element)); }',
      arguments: [{ value: INJECTED_KEY }, ...objects.filter((id): id is string => id !== undefined).map((objectId) => ({ objectId }))],
    });
  } catch {
    // A document gone meanwhile (a navigation): its next walk marks again.
  } finally {
    await client.send('Runtime.releaseObjectGroup', { objectGroup: GROUP }).catch(() => undefined);
  }
}
