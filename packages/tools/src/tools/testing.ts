import { z } from 'zod';
import { renderLocator } from '../engine/codegen.js';
import { inPage } from '../engine/in-page.js';
import { locatorChain } from '../session/record-code.js';
import { collapse } from '../injected/util.js';
import { defineTabTool } from '../session/tool.js';
import { elementSchema, label, targetSchema } from './common.js';

// Checks a test would make, answered as isError when they fail, and the locator a test would use.

const generateLocator = defineTabTool({
  capability: 'testing',
  schema: {
    name: 'browser_generate_locator',
    title: 'Generate a locator',
    description: "A Playwright locator for the element, for a test: e.g. getByRole('button', { name: 'Save' }).",
    inputSchema: z.object({ element: elementSchema, target: targetSchema }),
    type: 'readOnly',
  },
  async handle(tab, { target }, response, session) {
    const chain = await tab.withElement(target, (el, frame) => locatorChain(el, frame, session.config.testIdAttribute));
    // In the session's code language; TypeScript when it writes no code.
    const lang = session.config.codegen === 'none' ? 'typescript' : session.config.codegen;
    response.addResult(renderLocator(chain, lang));
  },
});

const verifyElement = defineTabTool({
  capability: 'testing',
  schema: {
    name: 'browser_verify_element_visible',
    title: 'Verify an element is visible',
    description: 'Check that an element with this role and accessible name is on the page, as the snapshot shows `- role "name"`.',
    inputSchema: z.object({
      role: z.string().min(1).describe('The role, as in the snapshot: - {ROLE} "name"'),
      accessibleName: z.string().describe('The accessible name, as in the snapshot: - role "{NAME}"'),
    }),
    type: 'readOnly',
  },
  async handle(tab, { role, accessibleName }, response) {
    const head = `- ${role} ${JSON.stringify(accessibleName)}`;
    const lines = (await tab.snapshot({ maxChars: Infinity })).split('\n');
    const found = lines.some((l) => {
      const t = l.trimStart();
      return t.startsWith(head) && /^($|[ :])/.test(t.slice(head.length));
    });
    if (!found) response.addError(`No ${role} named ${JSON.stringify(accessibleName)} is visible on the page.`);
    else response.addResult(`Done: ${role} ${JSON.stringify(accessibleName)} is visible.`);
  },
});

const verifyText = defineTabTool({
  capability: 'testing',
  schema: {
    name: 'browser_verify_text_visible',
    title: 'Verify text is visible',
    description: 'Check that this text is visible on the page. Prefer browser_verify_element_visible when the text names an element.',
    inputSchema: z.object({ text: z.string().min(1).describe('The text, as the snapshot shows it') }),
    type: 'readOnly',
  },
  async handle(tab, { text }, response) {
    const page = await inPage(tab.page.mainFrame(), 'readableText', null);
    if (!collapse(page).includes(collapse(text))) response.addError(`The text ${JSON.stringify(text)} is not visible on the page.`);
    else response.addResult(`Done: ${JSON.stringify(text)} is visible.`);
  },
});

const verifyList = defineTabTool({
  capability: 'testing',
  schema: {
    name: 'browser_verify_list_visible',
    title: 'Verify a list is visible',
    description: 'Check that a list (or any element) shows each of these items.',
    inputSchema: z.object({
      element: z.string().describe('Human-readable description of the list'),
      target: targetSchema.describe('The list: a ref from the snapshot or a CSS selector'),
      items: z.array(z.string().min(1)).min(1, 'items needs at least one item').describe('Items the list must show'),
    }),
    type: 'readOnly',
  },
  async handle(tab, { element, target, items }, response) {
    const text = collapse(await tab.withElement(target, (el, frame) => inPage(frame, 'readableText', el)));
    const missing = items.filter((item) => !text.includes(collapse(item)));
    if (missing.length) response.addError(`${label(target, element)} does not show ${missing.map((m) => JSON.stringify(m)).join(', ')}.`);
    else response.addResult(`Done: ${label(target, element)} shows all ${items.length} items.`);
  },
});

const verifyValue = defineTabTool({
  capability: 'testing',
  schema: {
    name: 'browser_verify_value',
    title: 'Verify a value',
    description: 'Check the value of a form field, or whether a checkbox or radio is checked ("true" / "false").',
    inputSchema: z.object({
      type: z.enum(['textbox', 'checkbox', 'radio', 'combobox', 'slider']).describe('What kind of field it is'),
      element: z.string().describe('Human-readable description of the field'),
      target: targetSchema,
      value: z.string().describe('The expected value; "true" or "false" for a checkbox or radio'),
    }),
    type: 'readOnly',
  },
  async handle(tab, { type, element, target, value }, response) {
    const actual = await tab.withElement(target, (el, frame) => inPage(frame, 'valueToVerify', el, type));
    if (actual !== value) response.addError(`${label(target, element)}: expected ${JSON.stringify(value)}, but it is ${JSON.stringify(actual)}.`);
    else response.addResult(`Done: ${label(target, element)} is ${JSON.stringify(value)}.`);
  },
});

export default [generateLocator, verifyElement, verifyText, verifyList, verifyValue];
