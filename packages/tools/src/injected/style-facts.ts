/**
 * What the document's style sheets allow a change to reach, for the walk's reuse of unchanged parts (walk-cache.ts):
 * a change to one element restyles its own subtree, and, depending on the selectors in use, its later siblings
 * (`+`, `~`, `:nth-child`, `:empty`), anything above it (`:has()`, container queries), or whatever a hover, focus or
 * checked state shows. Read from the sheets once per set of sheets; a sheet that cannot be read (another origin's)
 * is taken to use everything.
 */
export interface StyleFacts {
  /** Changes when a sheet is added, removed, disabled or given rules (CSSOM edits fire no mutation). */
  key: string;
  /** A selector can match an element by its earlier siblings or by how many children it has. */
  siblings: boolean;
  /** A change below an element can restyle it or what is around it (`:has()`, `@container`, `@scope`). */
  upward: boolean;
  /** A rule that a state (hover, focus, checked…) turns on decides what is shown, hidden or clickable. */
  states: boolean;
}

const SIBLING = /[+~]|:(?:nth-|first-|last-|only-|empty)/;
const UPWARD = /:has\(/;
// Pseudo-classes that turn on with what a person does or a script sets without touching the DOM.
const STATE =
  /:(?:hover|focus|focus-within|focus-visible|active|checked|indeterminate|placeholder-shown|valid|invalid|user-valid|user-invalid|enabled|disabled|default|in-range|out-of-range|target|open|closed|popover-open|modal|fullscreen|autofill|blank|playing|paused|read-only|read-write|state)\b/;
// What the walk reads of an element's style: whether it shows, how it is laid out, its cursor, its generated text.
const READ = ['display', 'visibility', 'content-visibility', 'content', 'cursor', 'pointer-events', 'all'];

let known: StyleFacts | undefined;

function sheetsOf(): CSSStyleSheet[] {
  return [...Array.from(document.styleSheets), ...(document.adoptedStyleSheets ?? [])];
}

function keyOf(sheets: CSSStyleSheet[]): string {
  let key = '';
  for (const sheet of sheets) {
    let rules: number | string;
    try {
      rules = sheet.cssRules.length;
    } catch {
      rules = 'x';
    }
    key += `${rules}${sheet.disabled ? 'd' : ''}${sheet.media.mediaText};`;
  }
  return key;
}

function scan(rules: CSSRuleList, facts: StyleFacts): void {
  for (const rule of Array.from(rules)) {
    if (rule instanceof CSSStyleRule) {
      const selector = rule.selectorText;
      if (SIBLING.test(selector)) facts.siblings = true;
      if (UPWARD.test(selector)) facts.upward = true;
      if (!facts.states && STATE.test(selector) && READ.some((p) => rule.style.getPropertyValue(p))) facts.states = true;
    } else if (rule instanceof CSSImportRule) {
      if (rule.styleSheet) scanSheet(rule.styleSheet, facts);
      continue;
    } else if (rule.constructor.name === 'CSSContainerRule' || rule.constructor.name === 'CSSScopeRule') {
      facts.upward = true;
    }
    // Grouping rules (@media, @supports, @layer) and nested style rules hold more rules.
    if ('cssRules' in rule) scan((rule as CSSGroupingRule).cssRules, facts);
  }
}

function scanSheet(sheet: CSSStyleSheet, facts: StyleFacts): void {
  try {
    scan(sheet.cssRules, facts);
  } catch {
    facts.siblings = facts.upward = facts.states = true;
  }
}

/** The facts of the document's sheets as they are now: worked out again only when the sheets have changed. */
export function styleFacts(): StyleFacts {
  const sheets = sheetsOf();
  const key = keyOf(sheets);
  if (known?.key === key) return known;
  const facts: StyleFacts = { key, siblings: false, upward: false, states: false };
  for (const sheet of sheets) scanSheet(sheet, facts);
  known = facts;
  return facts;
}
