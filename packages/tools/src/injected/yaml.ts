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
  /** Inline code (`<code>` in a line of text): written into the text around it in backticks, as Markdown does. */
  inline?: true;
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

/** Most characters a text run (or a line's value) shows; what is longer is cut with an ellipsis. */
const RUN_CHARS = 400;

/**
 * Inline code with nothing of its own to say (no ref, name, state, value or element inside) reads as its text in
 * backticks: a paragraph of prose with identifiers in it is one line, as a person reads it, not a line per word run
 * (the Rust book's paragraphs were a third of its snapshot's lines).
 */
export function foldedCode(item: TreeNode): string | undefined {
  if (!item.inline || item.ref || item.name || item.props || item.value !== undefined || item.box !== undefined) return undefined;
  let text = '';
  for (const c of item.children) {
    if (typeof c !== 'string') return undefined;
    text += c;
  }
  text = collapse(text);
  return text ? `\`${text}\`` : undefined;
}

/**
 * The text of `items` as one line, when all of it is text or folded code: text alone is cut at RUN_CHARS as any run
 * is; with code in it, only if it fits (else it goes line by line, each run cut on its own).
 */
function asOneRun(items: Item[]): string | undefined {
  let run = '';
  let folded = false;
  for (const c of items) {
    const text = typeof c === 'string' ? c : foldedCode(c);
    if (text === undefined) return undefined;
    folded ||= typeof c !== 'string';
    run += text;
  }
  run = collapse(run);
  return run.length <= RUN_CHARS ? run : folded ? undefined : clip(run, RUN_CHARS);
}

function render(items: Item[], indent: string, depth: number, out: Out): void {
  // Text runs come as the page has them: folded here, once each; a run of whitespace alone writes nothing.
  let pending = '';
  const flush = () => {
    const text = pending && collapse(pending);
    if (text) out.text += `${indent}- text: ${scalar(clip(text, RUN_CHARS))}\n`;
    pending = '';
  };
  for (const item of items) {
    if (typeof item === 'string') {
      pending += item;
      continue;
    }
    const code = foldedCode(item);
    if (code !== undefined) {
      // Into the run, unless that would push it past the cut: the run is written first, the code starts the next.
      if (pending.length + code.length + 2 > RUN_CHARS && collapse(pending).length + code.length + 2 > RUN_CHARS) flush();
      pending += code;
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
    const hasKids = item.children.length > 0;
    const run = hasKids && item.value === undefined ? asOneRun(item.children) : undefined;
    if (item.value !== undefined && !hasKids) {
      out.text += `${line}: ${scalar(clip(item.value, 200))}\n`;
    } else if (run !== undefined) {
      out.text += `${line}: ${scalar(run)}\n`;
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
