import { clip, collapse } from './util.js';

/** The tree the walk builds and the renderer writes: nodes with a role, and text runs as plain strings. */
export type Item = TreeNode | string;
export interface TreeNode {
  /** How many elements it shows inside it, all the way down. */
  size: number;
  role: string;
  name: string;
  ref: string | undefined;
  props: string;
  value: string | undefined;
  url: string | undefined;
  children: Item[];
  /** Visible text of the subtree, for names taken from content: worked out only when an ancestor asks. */
  text: string | undefined;
  /** Whether the name came from the element's own attributes (aria-label, alt, a label…), not its content. */
  ownName: boolean;
  /** `x,y,width,height` when the walk was asked for boxes. */
  box: string | undefined;
  /** The element, while the walk runs (whether its text stands apart from its neighbours' is asked of it). */
  el?: Element;
}

const esc = (s: string) => JSON.stringify(s);
// Text and values are written bare when YAML would read them back unchanged, quoted otherwise (as Playwright's
// ARIA snapshots do); names always keep their quotes.
const PLAIN = /^[A-Za-z0-9(][^:#"'\\\n]*$/;
const scalar = (s: string) => (PLAIN.test(s) && !/\s$/.test(s) && !/^(true|false|null|yes|no|on|off|~)$/i.test(s) ? s : esc(s));

interface Out {
  /** The lines so far, each ended by a newline: one string grown in place costs less than an array joined after. */
  text: string;
  /** Ref prefix of the frame (`f1`), written before each ref. */
  prefix: string;
  maxDepth: number;
}

/** The YAML of a tree, lines joined by newlines, refs written with the frame's prefix; nodes deeper than `maxDepth` are summarized. */
export function renderYaml(items: Item[], prefix: string, maxDepth: number): string {
  const out: Out = { text: '', prefix, maxDepth };
  render(items, '', 0, out);
  return out.text.slice(0, -1);
}

function render(items: Item[], indent: string, depth: number, out: Out): void {
  // Text runs come as the page has them: folded here, once each; a run of whitespace alone writes nothing.
  let pending = '';
  const flush = () => {
    const text = pending && collapse(pending);
    if (text) out.text += `${indent}- text: ${scalar(clip(text, 400))}\n`;
    pending = '';
  };
  for (const item of items) {
    if (typeof item === 'string') {
      pending += item;
      continue;
    }
    flush();
    let line = `${indent}- ${item.role}`;
    if (item.name) line += ` ${esc(item.name)}`;
    line += item.props;
    if (item.ref) line += ` [ref=${out.prefix}${item.ref}]`;
    if (item.box !== undefined) line += ` [box=${item.box}]`;
    // The link target sits on the line itself: a `- /url:` child line would cost a line per link.
    if (item.url !== undefined) line += ` [url=${item.url}]`;
    const onlyText = item.children.length > 0 && item.children.every((c) => typeof c === 'string');
    const hasKids = item.children.length > 0;
    if (item.value !== undefined && !hasKids) {
      out.text += `${line}: ${scalar(clip(item.value, 200))}\n`;
    } else if (onlyText && item.value === undefined) {
      out.text += `${line}: ${scalar(clip(collapse((item.children as string[]).join('')), 400))}\n`;
    } else if (!hasKids) {
      out.text += `${line}\n`;
    } else if (depth >= out.maxDepth) {
      out.text += `${line}: …\n`;
    } else {
      out.text += `${line}:\n`;
      if (item.value !== undefined) out.text += `${indent}  - /value: ${scalar(clip(item.value, 200))}\n`;
      render(item.children, `${indent}  `, depth + 1, out);
    }
  }
  flush();
}
