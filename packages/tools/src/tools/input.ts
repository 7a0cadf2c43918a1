import type { ElementHandle, Frame, KeyInput } from 'puppeteer-core';
import { z } from 'zod';
import { unknownKey } from '../engine/browser-errors.js';
import { ToolError } from '../engine/errors.js';
import type { ToolSession } from '../session/session.js';
import type { Tab } from '../tab/tab.js';
import { inPage } from '../engine/in-page.js';
import { NOT_RANGE } from '../injected/actions.js';
import { codeArg, type CodeStep, type LocatorChain } from '../engine/codegen.js';
import { addCode, locatorForCode, typedText } from '../session/record-code.js';
import { defineTabTool } from '../session/tool.js';
import { elementSchema, label, targetSchema } from './common.js';
import { delay } from '../engine/timing.js';

/** How long Chrome gets to start its drag session after the page's dragstart (see browser_drag). */
const DRAG_START_MS = 50;

const MODIFIERS = ['Alt', 'Control', 'ControlOrMeta', 'Meta', 'Shift'] as const;
type Modifier = (typeof MODIFIERS)[number];

function modifierKey(m: Modifier): KeyInput {
  // ControlOrMeta: Meta on macOS hosts, Control elsewhere (as in Playwright).
  if (m === 'ControlOrMeta') return typeof navigator !== 'undefined' && /Mac/.test(navigator.platform) ? 'Meta' : 'Control';
  return m;
}

const click = defineTabTool({
  capability: 'core',
  schema: {
    name: 'browser_click',
    title: 'Click',
    description:
      'Click an element like a person: scrolls it into view, waits until it is visible, enabled and not covered, clicks, ' +
      'then waits for what the click caused (a navigation, requests, the page settling).',
    inputSchema: z.object({
      target: targetSchema,
      element: elementSchema,
      doubleClick: z.boolean().optional().describe('Double-click instead of a single click'),
      button: z.enum(['left', 'right', 'middle']).optional().describe('Mouse button, left by default'),
      modifiers: z.array(z.enum(MODIFIERS)).optional().describe('Modifier keys to hold during the click'),
    }),
    type: 'action',
  },
  async handle(tab, { target, element, doubleClick, button, modifiers = [] }, response, session) {
    let code: CodeStep | undefined;
    await tab.withElement(target, async (el, frame) => {
      const locator = await locatorForCode(session, el, frame);
      const options = {
        ...(button && button !== 'left' ? { button: { value: button, enumType: 'MouseButton' } } : {}),
        ...(modifiers.length ? { modifiers: { value: modifiers.join('+') } } : {}),
      };
      if (locator) code = { on: { locator }, method: doubleClick ? 'dblclick' : 'click', args: Object.keys(options).length ? [codeArg.options(options)] : [] };
      const point = await tab.actionPoint(el, frame, label(target, element), true, session.config.actionTimeoutMs);
      const choosing = !doubleClick && (button ?? 'left') === 'left' && (await inPage(frame, 'expectChoice', el));
      const { mouse, keyboard } = tab.page;
      await tab.runAction(
        async () => {
          for (const m of modifiers) await keyboard.down(modifierKey(m));
          try {
            await mouse.click(point.x, point.y, { button: button ?? 'left', count: doubleClick ? 2 : 1 });
          } finally {
            for (const m of [...modifiers].reverse()) await keyboard.up(modifierKey(m));
          }
        },
        { expectChooser: point.opensChooser && (button ?? 'left') === 'left', input: { frame, what: 'click', kind: 'press' } },
      );
      // An option of a custom select: the answer says it was chosen only if the widget shows it.
      const refused = choosing ? await inPage(frame, 'choiceRefused').catch(() => undefined) : undefined;
      if (refused) {
        throw new ToolError(
          `Clicked ${label(target, element)}, but the select still shows ${JSON.stringify(refused.shows)}, not ${JSON.stringify(refused.name)}: the choice did not take. Take a new snapshot, open the list again and click the option.`,
        );
      }
    });
    response.addDone(`${doubleClick ? 'Double-clicked' : 'Clicked'} ${label(target, element)}`);
    addCode(session, response, [code]);
    response.setIncludeSnapshot();
  },
});

const hover = defineTabTool({
  capability: 'core',
  schema: {
    name: 'browser_hover',
    title: 'Hover',
    description: 'Move the mouse over an element (to open a menu or show a tooltip).',
    inputSchema: z.object({ target: targetSchema, element: elementSchema }),
    type: 'readOnly',
  },
  async handle(tab, { target, element }, response, session) {
    const locator = await tab.withElement(target, async (el, frame) => {
      const locator = await locatorForCode(session, el, frame);
      const point = await tab.actionPoint(el, frame, label(target, element), false, session.config.actionTimeoutMs);
      await tab.runAction(() => tab.page.mouse.move(point.x, point.y), { input: { frame, what: 'hover', kind: 'move' }, pointerMoves: true });
      return locator;
    });
    response.addDone(`Hovered over ${label(target, element)}`);
    addCode(session, response, [locator && { on: { locator }, method: 'hover' }]);
    response.setIncludeSnapshot();
  },
});

const drag = defineTabTool({
  capability: 'core',
  schema: {
    name: 'browser_drag',
    title: 'Drag and drop',
    description: 'Drag one element onto another.',
    inputSchema: z.object({
      startTarget: targetSchema.describe('Element to drag: a ref or CSS selector'),
      startElement: elementSchema,
      endTarget: targetSchema.describe('Element to drop onto: a ref or CSS selector'),
      endElement: elementSchema,
    }),
    type: 'action',
  },
  async handle(tab, { startTarget, startElement, endTarget, endElement }, response, session) {
    const timeout = session.config.actionTimeoutMs;
    let code: CodeStep | undefined;
    await tab.withElement(startTarget, (startEl, startFrame) =>
      tab.withElement(endTarget, async (endEl, endFrame) => {
        const [source, destination] = [await locatorForCode(session, startEl, startFrame), await locatorForCode(session, endEl, endFrame)];
        if (source && destination) code = { on: { locator: source }, method: 'dragTo', args: [codeArg.locator(destination)] };
        const from = await tab.actionPoint(startEl, startFrame, label(startTarget, startElement), true, timeout);
        const to = await tab.actionPoint(endEl, endFrame, label(endTarget, endElement), false, timeout);
        const { mouse } = tab.page;
        await tab.runAction(
          async () => {
            await mouse.move(from.x, from.y);
            await mouse.down();
            // A few pixels first: past Chrome's drag threshold the page's dragstart runs and Chrome starts its drag
            // session, which takes a moment; moves sent before it has started are plain mouse moves, and the drop is lost.
            await mouse.move(from.x + 4, from.y + 4, { steps: 2 });
            await delay(DRAG_START_MS);
            await mouse.move(to.x, to.y, { steps: 8 });
            await mouse.move(to.x, to.y);
            await mouse.up();
          },
          { input: { frame: startFrame, what: 'drag', kind: 'press' }, pointerMoves: true },
        );
      }),
    );
    response.addDone(`Dragged ${label(startTarget, startElement)} to ${label(endTarget, endElement)}`);
    addCode(session, response, [code]);
    response.setIncludeSnapshot();
  },
});

/** A secret's name stands for its value (--secrets); any other text is typed as it is. */
function secretOr(session: ToolSession, text: string): string {
  return session.secret(text) ?? text;
}

/**
 * Types into an editable element: replaces its content (selects it, then inserts the text in one insertText call,
 * which fires beforeinput/input like typing), or, `slowly`, types key by key at the caret and keeps what is there, as
 * @playwright/mcp's pressSequentially does (for key handlers such as autocomplete, and editors).
 */
async function fill(tab: Tab, el: ElementHandle<Element>, frame: Frame, text: string, what: string, timeoutMs: number, slowly = false): Promise<void> {
  await tab.actionPoint(el, frame, what, true, timeoutMs);
  const editable = await inPage(frame, 'focusForTyping', el, !slowly);
  if (editable === 'not-editable') throw new ToolError(`${what} is not a text field. Use browser_click or browser_select_option for it.`);
  if (editable === 'readonly') throw new ToolError(`${what} is read-only and cannot be typed into.`);
  if (slowly) await tab.page.keyboard.type(text, { delay: 10 });
  else if (!text) await tab.page.keyboard.press('Delete');
  else await tab.page.keyboard.sendCharacter(text);
}

/** Text without its spacing: an editor's lines and non-breaking spaces are not what tells typed text from lost text. */
const squash = (text: string) => text.replace(/[\u00a0\s]+/g, '');

/**
 * What the field holds after typing, when it is not what was asked (the page reformatted, refused or lost it); else
 * undefined. A secret's value is never echoed.
 */
async function heldInstead(frame: Frame, el: ElementHandle<Element>, typed: string, slowly: boolean, secret: boolean): Promise<string | undefined> {
  const held = await inPage(frame, 'valueToVerify', el, 'textbox').catch(() => undefined);
  if (held === undefined) return undefined;
  const arrived = slowly ? squash(held).includes(squash(typed)) : squash(held) === squash(typed);
  if (arrived) return undefined;
  return secret ? 'something other than the secret' : JSON.stringify(held.length > 200 ? `${held.slice(0, 199)}…` : held);
}

const type = defineTabTool({
  capability: 'core',
  schema: {
    name: 'browser_type',
    title: 'Type text',
    description: 'Type text into an editable element, replacing what it holds. Set submit to press Enter afterwards.',
    inputSchema: z.object({
      target: targetSchema,
      element: elementSchema,
      text: z.string().describe('Text to type'),
      submit: z.boolean().optional().describe('Press Enter after typing'),
      slowly: z.boolean().optional().describe('Type one character at a time (to trigger key handlers such as autocomplete)'),
    }),
    type: 'action',
  },
  async handle(tab, { target, element, text, submit, slowly }, response, session) {
    const what = label(target, element);
    let instead: string | undefined;
    const locator = await tab.withElement(target, async (el, frame) => {
      const locator = await locatorForCode(session, el, frame);
      const typed = secretOr(session, text);
      await tab.runAction(() => fill(tab, el, frame, typed, what, session.config.actionTimeoutMs, slowly === true), {
        input: { frame, what: 'typing', kind: 'key' },
      });
      // The field's own word on what it holds, before Enter may submit and clear it: never "Typed" when it is not there.
      instead = await heldInstead(frame, el, typed, slowly === true, typed !== text);
      // Its own check: the text can arrive (inserted) and the key press still be lost.
      if (submit) await tab.runAction(() => tab.page.keyboard.press('Enter'), { input: { frame, what: 'Enter after typing', kind: 'key' } });
      return locator;
    });
    if (instead === undefined) response.addDone(`Typed ${JSON.stringify(text)} into ${what}${submit ? ' and pressed Enter' : ''}`);
    else
      response.addResult(
        `${JSON.stringify(text)} did not arrive as typed: ${what} holds ${instead} (the page changed or refused it)${submit ? '; then pressed Enter' : ''}`,
      );
    if (locator) {
      addCode(session, response, [
        { on: { locator }, method: slowly ? 'pressSequentially' : 'fill', args: [typedText(session, text)] },
        submit ? { on: { locator }, method: 'press', args: [codeArg.string('Enter')] } : undefined,
      ]);
    }
    response.setIncludeSnapshot();
  },
});

const pressKey = defineTabTool({
  capability: 'core',
  schema: {
    name: 'browser_press_key',
    title: 'Press a key',
    description: 'Press a key or a combination on the focused element, e.g. "Enter", "ArrowDown", "a", "Control+a", "Shift+Tab".',
    inputSchema: z.object({ key: z.string().min(1, 'key must not be empty').describe('Key name (KeyboardEvent.key) or modifiers joined with +') }),
    type: 'action',
  },
  async handle(tab, { key }, response, session) {
    const parts = key === '+' ? ['+'] : key.split('+').filter(Boolean);
    if (!parts.length) throw new ToolError(`"${key}" is not a key. Use names like "Enter", "a" or "Control+a".`);
    const keys = parts as KeyInput[];
    const main = keys[keys.length - 1]!;
    const mods = keys.slice(0, -1);
    const { keyboard } = tab.page;
    await tab.runAction(
      async () => {
        const down: KeyInput[] = [];
        try {
          for (const m of mods) {
            await keyboard.down(m);
            down.push(m);
          }
          await keyboard.press(main);
        } catch (err) {
          if (unknownKey(err)) {
            throw new ToolError(
              `${(err as Error).message}. Use KeyboardEvent.key names such as "Enter", "Escape", "ArrowDown", "PageDown", "a", or combinations like "Control+a".`,
            );
          }
          throw err;
        } finally {
          for (const m of down.reverse()) await keyboard.up(m);
        }
      },
      { input: { frame: tab.page.mainFrame(), what: 'key press', kind: 'key' } },
    );
    response.addDone(`Pressed ${key}`);
    addCode(session, response, [{ on: 'keyboard', method: 'press', args: [codeArg.string(key)] }]);
    response.setIncludeSnapshot();
  },
});

/** In-page: choose options of a <select> by value or visible label; returns the values that matched nothing. */
async function select(tab: Tab, el: ElementHandle<Element>, frame: Frame, values: string[], what: string, timeoutMs: number): Promise<void> {
  await tab.actionPoint(el, frame, what, true, timeoutMs);
  const result = await inPage(frame, 'selectOptions', el, values);
  if (result === 'not-select') throw new ToolError(`${what} is not a <select>. Click it and then click the option instead.`);
  if (result.missing.length) {
    throw new ToolError(
      `${what} has no option ${result.missing.map((v) => JSON.stringify(v)).join(', ')}. Options: ${result.available.map((v) => JSON.stringify(v)).join(', ')}.`,
    );
  }
}

const selectOption = defineTabTool({
  capability: 'core',
  schema: {
    name: 'browser_select_option',
    title: 'Select option',
    description: 'Select one or more options of a dropdown (<select>) by value or label.',
    inputSchema: z.object({
      target: targetSchema,
      element: elementSchema,
      values: z.array(z.string()).min(1, 'values needs at least one option value or label').describe('Values or labels to select'),
    }),
    type: 'action',
  },
  async handle(tab, { target, element, values }, response, session) {
    const what = label(target, element);
    const locator = await tab.withElement(target, async (el, frame) => {
      const locator = await locatorForCode(session, el, frame);
      await tab.runAction(() => select(tab, el, frame, values, what, session.config.actionTimeoutMs));
      return locator;
    });
    response.addDone(`Selected ${values.map((v) => JSON.stringify(v)).join(', ')} in ${what}`);
    addCode(session, response, [
      locator && { on: { locator }, method: 'selectOption', args: [values.length === 1 ? codeArg.string(values[0]!) : codeArg.strings(values)] },
    ]);
    response.setIncludeSnapshot();
  },
});

/** More arrow keys than this and the slider's steps are too fine to walk: the answer says where it stands. */
const MAX_SLIDER_KEYS = 200;

/**
 * Sets an ARIA slider (a div with role="slider", which no value can be written into) as a person does with the
 * keyboard: focused, then Up or Down arrows until it reads the value, and checked in its aria-valuenow.
 */
async function slideByKeys(tab: Tab, el: ElementHandle<Element>, frame: Frame, value: string, what: string): Promise<void> {
  const want = Number(value);
  if (value.trim() === '' || !Number.isFinite(want)) throw new ToolError(`${what}: ${JSON.stringify(value)} is not a number.`);
  let now = await inPage(frame, 'sliderValue', el);
  if (now === undefined) throw new ToolError(`${what} is not a slider: neither an input type=range nor an element with aria-valuenow.`);
  await el.focus();
  for (let i = 0; i < MAX_SLIDER_KEYS && now !== want; i++) {
    const up = now < want;
    await tab.page.keyboard.press(up ? 'ArrowUp' : 'ArrowDown');
    const next: number | undefined = await inPage(frame, 'sliderValue', el);
    // At its end, or past the value (a step that does not land on it): where it stands is the answer.
    if (next === undefined || next === now) break;
    now = next;
    if (up ? now > want : now < want) break;
  }
  if (now !== want) throw new ToolError(`${what}: the arrow keys took it to ${now}, not ${want} (its steps or bounds do not reach it).`);
}

/** The line a test would write for one field of browser_fill_form. */
function fieldCode(session: ToolSession, locator: LocatorChain, type: 'textbox' | 'checkbox' | 'radio' | 'combobox' | 'slider', value: string): CodeStep {
  const on = { locator };
  switch (type) {
    case 'textbox':
      return { on, method: 'fill', args: [typedText(session, value)] };
    case 'checkbox':
    case 'radio':
      return { on, method: value === 'false' ? 'uncheck' : 'check' };
    case 'combobox':
      return { on, method: 'selectOption', args: [codeArg.string(value)] };
    case 'slider':
      return { on, method: 'fill', args: [codeArg.string(value)] };
  }
}

const fillForm = defineTabTool({
  capability: 'core',
  schema: {
    name: 'browser_fill_form',
    title: 'Fill form',
    description: 'Fill several form fields at once: text boxes, checkboxes, radios, dropdowns and sliders.',
    inputSchema: z.object({
      fields: z
        .array(
          z.object({
            target: targetSchema,
            name: z.string().describe('Human-readable field name'),
            type: z.enum(['textbox', 'checkbox', 'radio', 'combobox', 'slider']).describe('Type of the field'),
            value: z.string().describe('Text for a textbox, "true"/"false" for a checkbox or radio, an option for a combobox, a number for a slider'),
          }),
        )
        .min(1, 'fields needs at least one field'),
    }),
    type: 'action',
  },
  async handle(tab, { fields }, response, session) {
    const timeout = session.config.actionTimeoutMs;
    const code: CodeStep[] = [];
    for (const field of fields) {
      const what = label(field.target, field.name);
      await tab.withElement(field.target, async (el, frame) => {
        const locator = await locatorForCode(session, el, frame);
        if (locator) code.push(fieldCode(session, locator, field.type, field.value));
        switch (field.type) {
          case 'textbox':
            await tab.runAction(() => fill(tab, el, frame, secretOr(session, field.value), what, timeout));
            break;
          case 'checkbox':
          case 'radio': {
            if (field.value !== 'true' && field.value !== 'false') {
              throw new ToolError(`${what}: value must be "true" or "false" for a ${field.type}, got ${JSON.stringify(field.value)}.`);
            }
            const want = field.value === 'true';
            const checked = await inPage(frame, 'isChecked', el);
            if (checked !== want) {
              if (field.type === 'radio' && !want) throw new ToolError(`${what}: a radio button cannot be unchecked; check another one instead.`);
              const point = await tab.actionPoint(el, frame, what, true, timeout);
              await tab.runAction(() => tab.page.mouse.click(point.x, point.y));
            }
            break;
          }
          case 'combobox':
            await tab.runAction(() => select(tab, el, frame, [field.value], what, timeout));
            break;
          case 'slider': {
            await tab.actionPoint(el, frame, what, true, timeout);
            const problem = await inPage(frame, 'setRange', el, field.value);
            if (problem === NOT_RANGE)
              await tab.runAction(() => slideByKeys(tab, el, frame, field.value, what), { input: { frame, what: 'arrow keys', kind: 'key' } });
            else if (problem) throw new ToolError(`${what}: ${problem}.`);
            break;
          }
        }
      });
    }
    response.addDone(`Filled ${fields.length} field${fields.length === 1 ? '' : 's'}: ${fields.map((f) => f.name).join(', ')}`);
    addCode(session, response, code);
    response.setIncludeSnapshot();
  },
});

export default [click, hover, drag, type, pressKey, selectOption, fillForm];
