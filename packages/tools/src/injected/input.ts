import { documentId } from './changes.js';

// Trusted input events this document received, by kind: how the host tells an action whose input reached the page
// from one Chrome dropped (a tab it treats as hidden may get the pointer's moves and lose its presses). Counted from
// the moment the script is installed, which is before any action (every action installs it to find its target).
export type InputKind = 'move' | 'press' | 'key';
const KINDS: Record<InputKind, string[]> = {
  move: ['pointermove', 'mousemove'],
  press: ['pointerdown', 'pointerup', 'mousedown', 'mouseup', 'click'],
  key: ['keydown', 'keyup', 'beforeinput', 'input'],
};
const received: Record<InputKind, number> = { move: 0, press: 0, key: 0 };
for (const kind of Object.keys(KINDS) as InputKind[]) {
  for (const type of KINDS[kind]) {
    addEventListener(
      type,
      (event) => {
        if (event.isTrusted) received[kind]++;
      },
      { capture: true, passive: true },
    );
  }
}

export interface InputReceived {
  doc: string;
  count: number;
  /** Keys go to the focused frame: with focus inside a child frame, this document does not see them. */
  focusInChildFrame: boolean;
}

/** How many trusted input events of `kind` this document has received, with the document's id (a new one starts at 0). */
export function inputReceived(kind: InputKind): InputReceived {
  const active = document.activeElement;
  return { doc: documentId, count: received[kind], focusInChildFrame: active instanceof HTMLIFrameElement || active instanceof HTMLFrameElement };
}
