import type { ElementHandle, Frame } from 'puppeteer-core';
import { CODE_FENCE, renderStep, type CodeArg, type CodeStep, type LocatorChain, type LocatorSpec } from '../engine/codegen.js';
import { inPage } from '../engine/in-page.js';
import type { Response } from './response.js';
import type { ToolSession } from './session.js';

/** How a test reaches the element: its locator, behind the locators of the frames that hold it. */
export async function locatorChain(el: ElementHandle<Element>, frame: Frame, testIdAttribute: string): Promise<LocatorChain> {
  const chain: LocatorSpec[] = [await inPage(frame, 'locatorSpecFor', el, testIdAttribute)];
  for (let child = frame, parent = frame.parentFrame(); parent; child = parent, parent = parent.parentFrame()) {
    const owner = await child.frameElement();
    if (!owner) break;
    try {
      chain.unshift(await inPage(parent, 'locatorSpecFor', owner, testIdAttribute));
    } finally {
      await owner.dispose();
    }
  }
  return chain;
}

/** The element's locator for the code of an action, or undefined when the session writes no code (--codegen none). */
export async function locatorForCode(session: ToolSession, el: ElementHandle<Element>, frame: Frame): Promise<LocatorChain | undefined> {
  return session.config.codegen === 'none' ? undefined : locatorChain(el, frame, session.config.testIdAttribute);
}

/** Text the model typed: a secret's name is read from the environment in the code, its value never written. */
export function typedText(session: ToolSession, text: string): CodeArg {
  return session.secret(text) !== undefined ? { kind: 'env', name: text } : { kind: 'string', value: text };
}

/** Adds the code that replays the call to its answer, in the session's language; nothing with --codegen none. */
export function addCode(session: ToolSession, response: Response, steps: ReadonlyArray<CodeStep | undefined>): void {
  const lang = session.config.codegen;
  if (lang === 'none') return;
  const lines = steps.filter((s): s is CodeStep => s !== undefined).map((s) => renderStep(s, lang));
  if (lines.length) response.addCode(lines.join('\n'), CODE_FENCE[lang]);
}
