import { z } from 'zod';
import { ToolError } from '../engine/errors.js';
import { inPage } from '../engine/in-page.js';
import { defineTabTool } from '../session/tool.js';
import { answerOrSave, filenameSchema, targetSchema } from './common.js';

const snapshot = defineTabTool({
  capability: 'core',
  schema: {
    name: 'browser_snapshot',
    title: 'Page snapshot',
    description:
      'Capture the accessibility snapshot of the current page: roles, names and a ref for every element you can act on. ' +
      'Better than a screenshot for deciding what to do. Pass target to see one part of a big page, depth to see its outline.',
    inputSchema: z.object({
      target: targetSchema.optional().describe('Only this element and its descendants (a ref or a CSS selector)'),
      depth: z.number().int().min(1).max(1000).optional().describe('Render at most this many levels of the tree'),
      boxes: z.boolean().optional().describe("Write each element's bounding box as [box=x,y,width,height], viewport-relative CSS pixels"),
      filename: filenameSchema('the snapshot'),
    }),
    type: 'readOnly',
  },
  async handle(tab, { target, depth, boxes, filename }, response, session) {
    const text = await tab.snapshot({
      ...(target ? { target } : {}),
      ...(depth !== undefined ? { depth } : {}),
      ...((boxes ?? session.config.snapshotBoxes) ? { boxes: true } : {}),
      // A file holds the whole snapshot: the budget is for answers.
      maxChars: filename === undefined ? session.config.snapshotMaxChars : Infinity,
    });
    if (filename === undefined) {
      response.setSnapshot(text);
      // The whole page, as the agent now has it: the next action's answer says what changed since.
      if (!target && depth === undefined) tab.shown(text, true);
    } else await answerOrSave(session, response, text, filename, 'the snapshot');
  },
});

const find = defineTabTool({
  capability: 'core',
  schema: {
    name: 'browser_find',
    title: 'Find on page',
    description:
      'Find elements whose name, text or link url matches, with their refs and where they sit. Use it on pages too big ' +
      'to snapshot, or to read where links lead (snapshots show a link url only where the name does not tell it).',
    inputSchema: z
      .object({
        text: z.string().min(1).optional().describe('Case-insensitive text to look for'),
        regex: z.string().min(1).optional().describe('JavaScript regular expression (without slashes) to look for'),
        limit: z.number().int().min(1).max(500).optional().describe('Most matches to return (default 50)'),
        filename: filenameSchema('the matches'),
      })
      .refine((a) => (a.text === undefined) !== (a.regex === undefined), {
        message: 'Pass exactly one of text or regex',
      }),
    type: 'readOnly',
  },
  async handle(tab, { text, regex, limit = 50, filename }, response, session) {
    let test: (line: string) => boolean;
    if (regex !== undefined) {
      let re: RegExp;
      try {
        re = new RegExp(regex, 'i');
      } catch (err) {
        throw new ToolError(`regex "${regex}" is not a valid regular expression: ${(err as Error).message}`);
      }
      test = (line) => re.test(line);
    } else {
      const needle = text!.toLowerCase();
      test = (line) => line.toLowerCase().includes(needle);
    }
    const lines = (await tab.snapshot({ maxChars: Infinity, allUrls: true })).split('\n');
    const matches: string[] = [];
    let total = 0;
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      const body = line.trimStart().replace(/^- /, '');
      if (!test(body.replace(/\s*\[ref=[^\]]+\]/g, ''))) continue;
      total++;
      if (matches.length >= limit) continue;
      matches.push(`- ${body}${contextOf(lines, i)}`);
    }
    const found = total
      ? `${total} match${total === 1 ? '' : 'es'}${total > matches.length ? ` (showing ${matches.length}; narrow the search or raise limit)` : ''}:\n${matches.join('\n')}`
      : `No element or text matches ${regex !== undefined ? `/${regex}/i` : JSON.stringify(text)}.`;
    await answerOrSave(session, response, found, filename, 'the matches');
  },
});

// The nearest enclosing line that has a ref, so a text match can be acted on or snapshotted with target.
function contextOf(lines: string[], index: number): string {
  const indent = /^ */.exec(lines[index]!)![0].length;
  for (let i = index - 1, want = indent; i >= 0 && want > 0; i--) {
    const line = lines[i]!;
    const ind = /^ */.exec(line)![0].length;
    if (ind >= want) continue;
    want = ind;
    if (/\[ref=/.test(line)) return `  (in: ${line.trim().replace(/^- /, '').replace(/:$/, '')})`;
  }
  return '';
}

const getText = defineTabTool({
  capability: 'core',
  schema: {
    name: 'browser_get_text',
    title: 'Get page text',
    description: 'Read the visible text of the page, or of one element, as laid out for a person.',
    inputSchema: z.object({ target: targetSchema.optional().describe('Element to read (a ref or CSS selector); the whole page when omitted') }),
    type: 'readOnly',
  },
  async handle(tab, { target }, response, session) {
    let text: string;
    if (target) {
      text = await tab.withElement(target, (handle, frame) => inPage(frame, 'readableText', handle));
    } else {
      text = await inPage(tab.page.mainFrame(), 'readableText', null);
    }
    const max = session.config.snapshotMaxChars;
    if (text.length > max) {
      text = `${text.slice(0, max)}\n[Text cut at ${max} characters of ${text.length}. Pass target to read one part of the page.]`;
    }
    response.addResult(text || '(no visible text)');
  },
});

export default [snapshot, find, getText];
