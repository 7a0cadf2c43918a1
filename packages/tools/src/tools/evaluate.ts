import type { EvaluateFunc } from 'puppeteer-core';
import { z } from 'zod';
import { ToolError } from '../engine/errors.js';
import { defineTabTool } from '../session/tool.js';
import { answerOrSave, elementSchema, filenameSchema, label, targetSchema } from './common.js';

// puppeteer sends a function's source text (fn.toString()) to the page: a stand-in whose toString is the model's
// code costs one round trip and runs under the page's CSP exemption, unlike eval inside the page.
function pageFunction(source: string): EvaluateFunc<[unknown?]> {
  const fn = (() => undefined) as unknown as EvaluateFunc<[unknown?]>;
  fn.toString = () => source;
  return fn;
}

const FUNCTION_RE = /^\s*(async\s+)?(function\b|\([^)]*\)\s*=>|[\w$]+\s*=>)/;

const evaluate = defineTabTool({
  capability: 'core',
  schema: {
    name: 'browser_evaluate',
    title: 'Evaluate JavaScript',
    description:
      'Run a JavaScript function in the page and return its JSON result: "() => document.title", or with target ' + '"(element) => element.textContent".',
    inputSchema: z.object({
      function: z.string().min(1, 'function must not be empty').describe('() => { /* code */ } or (element) => { /* code */ } when target is given'),
      target: targetSchema.optional().describe('Element passed as the first argument (a ref or CSS selector)'),
      element: elementSchema,
      filename: filenameSchema('the result'),
    }),
    type: 'action',
  },
  async handle(tab, { function: source, target, element, filename }, response, session) {
    if (!FUNCTION_RE.test(source)) {
      throw new ToolError('function must be a JavaScript function such as "() => document.title" or "async () => { … }".');
    }
    let outcome: { value: unknown } | 'modal';
    try {
      if (target) {
        outcome = await tab.withElement(target, (handle, frame) => tab.unlessModal(() => frame.evaluate(pageFunction(source), handle)));
      } else {
        outcome = await tab.unlessModal(() => tab.page.mainFrame().evaluate(pageFunction(source)));
      }
    } catch (err) {
      if (err instanceof ToolError) throw err;
      const msg = err instanceof Error ? err.message : String(err);
      throw new ToolError(`The function threw in the page${target ? ` (on ${label(target, element)})` : ''}: ${msg.split('\n')[0]}`);
    }
    if (outcome === 'modal') {
      // The page is paused inside the function until the dialog is handled; its return value is lost.
      response.addResult('The function opened a dialog, so it has not returned. Handle the dialog; the result is not kept.');
      return;
    }
    const result = outcome.value;
    await answerOrSave(session, response, result === undefined ? 'undefined' : JSON.stringify(result, null, 2), filename, 'the result');
  },
});

export default [evaluate];
