/**
 * Code that runs inside the page. Every export here is passed to `frame.evaluate`, which sends the function's
 * source text: so each function must be self-contained (no imports, no references to module scope) and use only
 * web-platform APIs. Shared state lives on the document's window behind a symbol-keyed, non-enumerable property.
 *
 * Why an in-page walker rather than `Accessibility.getFullAXTree`: on a 3,000-row table the CDP tree took 4.2 s,
 * this walker well under 300 ms (see ARCHITECTURE.md). Roles and names follow the common HTML/ARIA cases; rare
 * naming cases fall back to text content.
 */

export interface WalkOptions {
  /** First ref number to hand out if this document has no walker state yet (keeps refs unique across documents). */
  seed: number;
  /** Render only the subtree of this element (a ref or CSS selector already resolved by `targetRef`). */
  targetRef?: string;
  /** Maximum depth of the rendered tree; deeper nodes are summarized. */
  depth?: number;
  /** Ref prefix for this frame (`f1` for the first iframe), empty for the main frame. */
  prefix: string;
  /** Write `[url=…]` on every link, not only where the url adds to the name (for `browser_find`). */
  allUrls?: boolean;
  /**
   * Stop walking once the snapshot is sure to pass this many characters (it is cut there anyway): on a big page an
   * action's answer costs a walk of what it shows, not of the whole page. Ignored with `depth`.
   */
  budget?: number;
}

export interface WalkResult {
  lines: string[];
  /** Ref (without prefix) of each iframe element, in document order, to splice child frames under. */
  iframeRefs: string[];
  /** Next free ref number in this document. */
  next: number;
  /** Set when `targetRef` did not resolve. */
  missing?: boolean;
  /** The walk stopped at the budget: the page has more than these lines show. */
  stopped?: boolean;
}

export interface FindMatch {
  line: string;
  context: string;
}

/** Walks the document (or one element) and renders the ARIA-like YAML snapshot with refs. */
export function walkPage(opts: WalkOptions): WalkResult {
  type Item = Node_ | string;
  interface Node_ {
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
  }
  interface State {
    ids: WeakMap<Element, string>;
    els: Map<string, WeakRef<Element>>;
    next: number;
  }
  const KEY = Symbol.for('browsermcp.refs');
  const w = window as unknown as Record<symbol, State | undefined>;
  let state = w[KEY];
  if (!state) {
    state = { ids: new WeakMap(), els: new Map(), next: opts.seed };
    Object.defineProperty(window, KEY, { value: state, enumerable: false });
  }
  const st = state;

  const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD', 'META', 'LINK', 'TITLE']);
  // Roles a person acts on: these always get a ref.
  const INTERACTIVE = new Set([
    'button', 'link', 'textbox', 'searchbox', 'checkbox', 'radio', 'combobox', 'listbox', 'option', 'slider',
    'spinbutton', 'switch', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'treeitem', 'iframe',
  ]);
  // Containers worth targeting with `browser_snapshot {target}` or `browser_get_text`.
  const TARGETABLE = new Set([
    'heading', 'table', 'list', 'form', 'dialog', 'alertdialog', 'navigation', 'main', 'region', 'tablist',
    'tabpanel', 'menu', 'menubar', 'tree', 'grid', 'img', 'article', 'banner', 'contentinfo', 'complementary',
  ]);
  const NAME_FROM_CONTENT = new Set([
    'button', 'link', 'heading', 'cell', 'gridcell', 'columnheader', 'rowheader', 'option', 'tab', 'menuitem',
    'menuitemcheckbox', 'menuitemradio', 'treeitem', 'tooltip', 'switch', 'checkbox', 'radio', 'row',
  ]);
  // Roles whose text children repeat the name; rendering them again would only cost characters.
  const LEAF_BY_NAME = new Set([
    'button', 'link', 'heading', 'option', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'treeitem',
    'switch', 'checkbox', 'radio', 'cell', 'gridcell', 'columnheader', 'rowheader',
  ]);
  const VALUE_TAGS = new Set(['INPUT', 'TEXTAREA', 'SELECT', 'PROGRESS', 'METER']);
  const VALUE_ROLES = new Set(['textbox', 'slider', 'spinbutton', 'progressbar', 'meter']);
  const SECTIONING = 'article, aside, main, nav, section';
  const CONTAINER_CELLS = new Set(['cell', 'gridcell', 'columnheader', 'rowheader']);
  const WRAPPERS = new Set(['cell', 'gridcell', 'listitem']);

  // The focused element does not move while the walk runs; the body is focused when nothing is.
  const active = document.activeElement === document.body ? null : document.activeElement;
  const collapse = (s: string) => s.replace(/\s+/g, ' ').trim();
  const clip = (s: string, n = 120) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

  function implicitRole(el: Element): string {
    const tag = el.tagName;
    switch (tag) {
      case 'A':
      case 'AREA':
        return el.hasAttribute('href') ? 'link' : 'generic';
      case 'BUTTON':
        return 'button';
      case 'INPUT': {
        const type = ((el as HTMLInputElement).type || 'text').toLowerCase();
        switch (type) {
          case 'button':
          case 'submit':
          case 'reset':
          case 'image':
            return 'button';
          case 'checkbox':
            return 'checkbox';
          case 'radio':
            return 'radio';
          case 'range':
            return 'slider';
          case 'number':
            return 'spinbutton';
          case 'search':
            return el.hasAttribute('list') ? 'combobox' : 'searchbox';
          case 'hidden':
            return 'none';
          case 'file':
            return 'button';
          default:
            return el.hasAttribute('list') ? 'combobox' : 'textbox';
        }
      }
      case 'TEXTAREA':
        return 'textbox';
      case 'SELECT': {
        const s = el as HTMLSelectElement;
        return s.multiple || s.size > 1 ? 'listbox' : 'combobox';
      }
      case 'OPTION':
        return 'option';
      case 'H1':
      case 'H2':
      case 'H3':
      case 'H4':
      case 'H5':
      case 'H6':
        return 'heading';
      case 'IMG':
        return el.getAttribute('alt') === '' ? 'presentation' : 'img';
      case 'UL':
      case 'OL':
      case 'MENU':
        return 'list';
      case 'LI':
        return 'listitem';
      case 'TABLE':
        return 'table';
      case 'TR':
        return 'row';
      case 'TD':
        return 'cell';
      case 'TH':
        return (el as HTMLTableCellElement).scope === 'row' ? 'rowheader' : 'columnheader';
      case 'NAV':
        return 'navigation';
      case 'MAIN':
        return 'main';
      case 'HEADER':
        return el.parentElement?.closest(SECTIONING) ? 'generic' : 'banner';
      case 'FOOTER':
        return el.parentElement?.closest(SECTIONING) ? 'generic' : 'contentinfo';
      case 'ASIDE':
        return 'complementary';
      case 'ARTICLE':
        return 'article';
      case 'SECTION':
        return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') ? 'region' : 'generic';
      case 'FORM':
        return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') || el.hasAttribute('name')
          ? 'form'
          : 'generic';
      case 'DIALOG':
        return 'dialog';
      case 'P':
        return 'paragraph';
      case 'BLOCKQUOTE':
        return 'blockquote';
      case 'FIELDSET':
      case 'DETAILS':
      case 'OPTGROUP':
        return 'group';
      case 'SUMMARY':
        return 'button';
      case 'PROGRESS':
        return 'progressbar';
      case 'METER':
        return 'meter';
      case 'IFRAME':
      case 'FRAME':
        return 'iframe';
      case 'HR':
        return 'separator';
      case 'CODE':
        return 'code';
      case 'PRE':
        return 'generic';
      case 'CAPTION':
        return 'caption';
      case 'LABEL':
      case 'LEGEND':
        return 'generic';
      default:
        if ((el as HTMLElement).isContentEditable && !el.parentElement?.isContentEditable) return 'textbox';
        return 'generic';
    }
  }

  function roleOf(el: Element, bare: boolean): string {
    const explicit = bare ? null : el.getAttribute('role');
    if (explicit) {
      const first = explicit.trim().split(/\s+/)[0];
      if (first) return first === 'none' ? 'presentation' : first;
    }
    return implicitRole(el);
  }

  function textOfIds(ids: string): string {
    const root = document;
    return collapse(
      ids
        .split(/\s+/)
        .map((id) => root.getElementById(id)?.textContent ?? '')
        .join(' '),
    );
  }

  function attrName(el: Element, role: string, bare: boolean): string {
    const tag = el.tagName;
    if (bare && tag !== 'INPUT' && tag !== 'TEXTAREA' && tag !== 'SELECT' && tag !== 'TABLE' && tag !== 'FIELDSET') return '';
    const labelledBy = el.getAttribute('aria-labelledby');
    if (labelledBy) {
      const t = textOfIds(labelledBy);
      if (t) return t;
    }
    const label = el.getAttribute('aria-label');
    if (label && label.trim()) return collapse(label);
    if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || tag === 'METER' || tag === 'PROGRESS') {
      const input = el as HTMLInputElement;
      const type = (input.type || '').toLowerCase();
      if (tag === 'INPUT' && (type === 'button' || type === 'submit' || type === 'reset')) {
        return input.value || (type === 'submit' ? 'Submit' : type === 'reset' ? 'Reset' : '');
      }
      if (tag === 'INPUT' && type === 'image') return input.alt || 'Submit';
      const labels = input.labels;
      if (labels && labels.length) {
        const t = collapse(Array.from(labels, (l) => labelText(l, el)).join(' '));
        if (t) return t;
      }
      const title = el.getAttribute('title');
      if (title) return collapse(title);
      const placeholder = el.getAttribute('placeholder');
      if (placeholder) return collapse(placeholder);
      return '';
    }
    if (tag === 'IMG' || tag === 'AREA') return collapse(el.getAttribute('alt') ?? el.getAttribute('title') ?? '');
    if (tag === 'FIELDSET') {
      const legend = el.querySelector(':scope > legend');
      if (legend) return collapse(legend.textContent ?? '');
    }
    if (tag === 'TABLE') {
      const caption = (el as HTMLTableElement).caption;
      if (caption) return collapse(caption.textContent ?? '');
    }
    if (role === 'iframe') return collapse(el.getAttribute('title') ?? '');
    return '';
  }

  // A label's text without the control it wraps (its value would repeat).
  function labelText(label: HTMLLabelElement, control: Element): string {
    if (!label.contains(control)) return label.textContent ?? '';
    let out = '';
    const visit = (n: Node) => {
      if (n === control) return;
      if (n.nodeType === 3) out += n.nodeValue;
      else n.childNodes.forEach(visit);
    };
    visit(label);
    return out;
  }

  // A <label> whose text is in the name of a control the snapshot shows, or the <legend> naming its <fieldset>:
  // writing that text again as `- text:` next to the control would only repeat it.
  function namesItsOwner(el: Element): boolean {
    if (el.tagName === 'LABEL') {
      const control = (el as HTMLLabelElement).control;
      if (!control || !control.checkVisibility({ visibilityProperty: true }) || control.getAttribute('aria-hidden') === 'true') return false;
      const text = collapse(labelText(el as HTMLLabelElement, control));
      return text !== '' && attrName(control, roleOf(control, false), false).includes(text);
    }
    if (el.tagName === 'LEGEND') {
      const fieldset = el.parentElement;
      return (
        fieldset?.tagName === 'FIELDSET' &&
        fieldset.querySelector(':scope > legend') === el &&
        !fieldset.hasAttribute('aria-label') &&
        !fieldset.hasAttribute('aria-labelledby')
      );
    }
    return false;
  }

  // Elements without an interactive role that a person can still act on: click handlers and focus stops.
  function isClickable(el: Element, role: string, bare: boolean): 'pointer' | 'focusable' | false {
    // Interactive roles get a ref anyway; any other element (a clickable row, paragraph or heading) needs one.
    if (bare || INTERACTIVE.has(role)) return false;
    if (el.hasAttribute('onclick')) return 'pointer';
    const tabindex = el.getAttribute('tabindex');
    if (tabindex !== null && Number(tabindex) >= 0) return 'focusable';
    return false;
  }

  function refFor(el: Element): string {
    let ref = st.ids.get(el);
    if (!ref) {
      ref = `e${st.next++}`;
      st.ids.set(el, ref);
      st.els.set(ref, new WeakRef(el));
    }
    return ref;
  }

  // `bare`: the element has no attributes, so every aria-* lookup can be skipped (most cells, rows, list items).
  function props(el: Element, role: string, bare: boolean): string {
    const attr = (name: string) => (bare ? null : el.getAttribute(name));
    let p = '';
    if (role === 'heading') {
      const level = attr('aria-level') ?? (/^H([1-6])$/.exec(el.tagName)?.[1] ?? '');
      if (level) p += ` [level=${level}]`;
    }
    if (role === 'checkbox' || role === 'radio' || role === 'switch' || role === 'menuitemcheckbox' || role === 'menuitemradio') {
      const aria = attr('aria-checked');
      const checked = el instanceof HTMLInputElement ? (el.indeterminate ? 'mixed' : el.checked) : aria === 'mixed' ? 'mixed' : aria === 'true';
      if (checked === 'mixed') p += ' [checked=mixed]';
      else if (checked) p += ' [checked]';
    }
    if (role === 'option') {
      if (el instanceof HTMLOptionElement ? el.selected : attr('aria-selected') === 'true') p += ' [selected]';
    } else if (attr('aria-selected') === 'true') p += ' [selected]';
    const pressed = attr('aria-pressed');
    if (pressed === 'true') p += ' [pressed]';
    else if (pressed === 'mixed') p += ' [pressed=mixed]';
    const expanded = attr('aria-expanded');
    if (expanded === 'true') p += ' [expanded]';
    else if (el.tagName === 'DETAILS' && (el as HTMLDetailsElement).open) p += ' [expanded]';
    const formControl = /^(INPUT|SELECT|TEXTAREA|BUTTON)$/.test(el.tagName);
    // `disabled` is a live property on buttons, inputs, options, fieldsets…; undefined elsewhere.
    if (
      attr('aria-disabled') === 'true' ||
      (el as HTMLButtonElement).disabled === true ||
      (formControl && el.closest('fieldset:disabled') !== null)
    ) {
      p += ' [disabled]';
    }
    if (el === active) p += ' [active]';
    return p;
  }

  function valueOf(el: Element, role: string): string | undefined {
    if (!VALUE_TAGS.has(el.tagName) && !VALUE_ROLES.has(role)) return undefined;
    if (el instanceof HTMLInputElement) {
      const type = el.type.toLowerCase();
      if (type === 'checkbox' || type === 'radio' || type === 'button' || type === 'submit' || type === 'reset' || type === 'image') return undefined;
      if (type === 'password') return el.value ? '••••' : undefined;
      if (type === 'file') return el.files && el.files.length ? Array.from(el.files, (f) => f.name).join(', ') : undefined;
      return el.value || undefined;
    }
    if (el instanceof HTMLTextAreaElement) return el.value || undefined;
    if (el instanceof HTMLSelectElement) {
      if (role === 'listbox') return undefined;
      return collapse(Array.from(el.selectedOptions, (o) => o.label || o.text).join(', ')) || undefined;
    }
    if (role === 'textbox' && (el as HTMLElement).isContentEditable) return collapse(el.textContent ?? '') || undefined;
    const now = el.getAttribute('aria-valuenow');
    if (now !== null && (role === 'slider' || role === 'spinbutton' || role === 'progressbar' || role === 'meter')) return now;
    if (el instanceof HTMLProgressElement || el instanceof HTMLMeterElement) return String(el.value);
    return undefined;
  }

  function childNodesOf(el: Element): ArrayLike<Node> {
    if (el.shadowRoot) return el.shadowRoot.childNodes;
    if (el instanceof HTMLSlotElement) {
      const assigned = el.assignedNodes({ flatten: true });
      return assigned.length ? assigned : el.childNodes;
    }
    return el.childNodes;
  }

  // A lower bound of the rendered size: only lines with a ref count, as they are always written (never flattened,
  // their names never dropped), so stopping here never leaves the snapshot shorter than the budget.
  const budget = opts.depth === undefined ? (opts.budget ?? Infinity) : Infinity;
  let written = 0;
  let stopped = false;

  // Collects the items for `el`'s children into `out`, flattening elements that carry no role of their own.
  function collect(el: Element, out: Item[]): void {
    const kids = childNodesOf(el);
    for (let i = 0; i < kids.length && !stopped; i++) {
      const n = kids[i]!;
      if (n.nodeType === 3) {
        const t = collapse(n.nodeValue ?? '');
        if (t) out.push(t);
      } else if (n.nodeType === 1) {
        visit(n as Element, out);
      }
    }
  }

  function visit(el: Element, out: Item[]): void {
    if (SKIP.has(el.tagName)) return;
    const bare = !el.hasAttributes();
    if (!bare && el.getAttribute('aria-hidden') === 'true') return;
    const isSlot = el instanceof HTMLSlotElement;
    // One style check in the common case; the rarer hidden cases decide whether children can still show.
    if (!isSlot && !el.checkVisibility({ visibilityProperty: true })) {
      if (el.checkVisibility() || getComputedStyle(el).display === 'contents') collect(el, out);
      // display: none (or a hidden ancestor): nothing below renders either.
      return;
    }
    const role = roleOf(el, bare);
    const clickable = isClickable(el, role, bare);
    if ((role === 'generic' || role === 'presentation' || role === 'none') && !clickable) {
      if (namesItsOwner(el)) {
        // Its text is already the name of the control or group it labels: keep only the elements inside.
        const inner: Item[] = [];
        collect(el, inner);
        for (const item of inner) if (typeof item !== 'string') out.push(item);
      } else {
        collect(el, out);
      }
      return;
    }
    const node = build(el, role, clickable, bare);
    // A cell or list item that only wraps one element says nothing the element does not: show the element.
    // (This keeps big tables within budget: a 3,000-row table shrinks by about a fifth.)
    if (WRAPPERS.has(node.role) && !node.ref && node.children.length === 1 && typeof node.children[0] !== 'string' && !node.ownName) {
      out.push(node.children[0]!);
      return;
    }
    out.push(node);
  }

  // Text of a run of items; a node's own text is worked out once, when first asked for (most never are).
  function textOf(items: Item[]): string {
    let text = '';
    for (const c of items) {
      let t: string;
      if (typeof c === 'string') t = c;
      else t = c.text ??= textOf(c.children) || c.name;
      if (t) text = text ? `${text} ${t}` : t;
    }
    return text;
  }

  function build(el: Element, role: string, clickable: 'pointer' | 'focusable' | false, bare: boolean): Node_ {
    // Refs are handed out in document order (parents before children).
    const ref = INTERACTIVE.has(role) || TARGETABLE.has(role) || clickable ? refFor(el) : undefined;
    const children: Item[] = [];
    if (role !== 'iframe' && !(el instanceof HTMLSelectElement && role === 'combobox') && el.tagName !== 'TEXTAREA') {
      collect(el, children);
    }
    const own = attrName(el, role, bare) || (bare ? '' : collapse(el.getAttribute('title') ?? ''));
    let name = own;
    let kids = children;
    if (!name && NAME_FROM_CONTENT.has(role) && role !== 'row') {
      // Cells and headers shown with their children would only repeat them in the name.
      if (!CONTAINER_CELLS.has(role) || kids.every((c) => typeof c === 'string')) name = textOf(children);
    }
    // A name repeated by the only text inside adds nothing.
    if (LEAF_BY_NAME.has(role) && kids.every((c) => typeof c === 'string')) kids = [];
    const node: Node_ = {
      role: role === 'presentation' || role === 'none' ? 'generic' : role,
      name: clip(name, role === 'heading' || role === 'link' || role === 'button' ? 200 : 120),
      ref,
      props: props(el, role, bare) + (clickable === 'pointer' ? ' [cursor=pointer]' : ''),
      value: valueOf(el, role),
      url: role === 'link' && !bare ? (el.getAttribute('href') ?? undefined) : undefined,
      children: kids,
      text: name && NAME_FROM_CONTENT.has(role) ? name : undefined,
      ownName: own !== '',
    };
    if (role === 'iframe' && ref) iframeRefs.push(ref);
    if (ref) {
      written += node.role.length + node.name.length + node.props.length + opts.prefix.length + ref.length + 10;
      if (written > budget) stopped = true;
    }
    if (role === 'link') {
      // A role="link" element (or an <a> without href) has no url: '' stands for "none" among same-named links.
      const href = node.url !== undefined ? (el as HTMLAnchorElement).href : undefined;
      links.push({ node, href: typeof href === 'string' ? href : '' });
    }
    return node;
  }

  const esc = (s: string) => JSON.stringify(s);
  // Text and values are written bare when YAML would read them back unchanged, quoted otherwise (as Playwright's
  // ARIA snapshots do); names always keep their quotes.
  const PLAIN = /^[A-Za-z0-9(][^:#"'\\\n]*$/;
  const scalar = (s: string) => (PLAIN.test(s) && !/\s$/.test(s) && !/^(true|false|null|yes|no|on|off|~)$/i.test(s) ? s : esc(s));
  const lines: string[] = [];
  const iframeRefs: string[] = [];
  const links: { node: Node_; href: string }[] = [];

  // A link's url is written only where it tells the reader something its name does not: the link has no name,
  // leads to another origin or scheme, or shares its name with a link to elsewhere. Elsewhere it repeats the
  // name (a 3,000-row table of links is 8 % smaller without); browser_find shows every url.
  function pruneUrls(): void {
    const urlsByName = new Map<string, Set<string>>();
    for (const { node, href } of links) {
      let set = urlsByName.get(node.name);
      if (!set) urlsByName.set(node.name, (set = new Set()));
      set.add(href);
    }
    const here = `${location.origin}/`;
    for (const { node, href } of links) {
      if (node.name && href.startsWith(here) && urlsByName.get(node.name)!.size === 1) node.url = undefined;
    }
  }
  const maxDepth = opts.depth ?? Infinity;

  function render(items: Item[], indent: string, depth: number): void {
    // Adjacent text runs are joined into one `text:` line.
    let pending = '';
    const flush = () => {
      if (pending) lines.push(`${indent}- text: ${scalar(clip(pending, 400))}`);
      pending = '';
    };
    for (const item of items) {
      if (typeof item === 'string') {
        pending = pending ? `${pending} ${item}` : item;
        continue;
      }
      flush();
      let line = `${indent}- ${item.role}`;
      if (item.name) line += ` ${esc(item.name)}`;
      line += item.props;
      if (item.ref) line += ` [ref=${opts.prefix}${item.ref}]`;
      // The link target sits on the line itself: a `- /url:` child line would cost a line per link.
      if (item.url !== undefined) line += ` [url=${item.url}]`;
      const onlyText = item.children.length > 0 && item.children.every((c) => typeof c === 'string');
      const hasKids = item.children.length > 0;
      if (item.value !== undefined && !hasKids) {
        lines.push(`${line}: ${scalar(clip(item.value, 200))}`);
      } else if (onlyText && item.value === undefined) {
        lines.push(`${line}: ${scalar(clip((item.children as string[]).join(' '), 400))}`);
      } else if (!hasKids) {
        lines.push(line);
      } else if (depth >= maxDepth) {
        lines.push(`${line}: …`);
      } else {
        lines.push(`${line}:`);
        if (item.value !== undefined) lines.push(`${indent}  - /value: ${scalar(clip(item.value, 200))}`);
        render(item.children, `${indent}  `, depth + 1);
      }
    }
    flush();
  }

  let root: Element = document.body ?? document.documentElement;
  const items: Item[] = [];
  if (opts.targetRef) {
    const target = st.els.get(opts.targetRef)?.deref();
    if (!target || !target.isConnected) return { lines: [], iframeRefs: [], next: st.next, missing: true };
    root = target;
    visit(root, items);
  } else {
    collect(root, items);
  }
  if (!opts.allUrls) pruneUrls();
  render(items, '', 0);
  return { lines, iframeRefs, next: st.next, ...(stopped ? { stopped } : {}) };
}

/**
 * Ref of an element (assigning one if needed), so a CSS selector can be turned into a ref. It repeats walkPage's
 * state setup on purpose: each injected function is sent to the page on its own and cannot share helpers.
 */
export function refOfElement(el: Element, seed: number): string {
  interface State {
    ids: WeakMap<Element, string>;
    els: Map<string, WeakRef<Element>>;
    next: number;
  }
  const KEY = Symbol.for('browsermcp.refs');
  const w = window as unknown as Record<symbol, State | undefined>;
  let st = w[KEY];
  if (!st) {
    st = { ids: new WeakMap(), els: new Map(), next: seed };
    Object.defineProperty(window, KEY, { value: st, enumerable: false });
  }
  let ref = st.ids.get(el);
  if (!ref) {
    ref = `e${st.next++}`;
    st.ids.set(el, ref);
    st.els.set(ref, new WeakRef(el));
  }
  return ref;
}

/** The element behind a ref, or null when the ref is unknown here or its element left the page. */
export function elementForRef(ref: string): Element | null {
  const st = (window as unknown as Record<symbol, { els: Map<string, WeakRef<Element>> } | undefined>)[
    Symbol.for('browsermcp.refs')
  ];
  const el = st?.els.get(ref)?.deref();
  return el && el.isConnected ? el : null;
}

export interface ActionPoint {
  ok: boolean;
  x: number;
  y: number;
  /** Why the element cannot be acted on yet. */
  reason?: string;
  /** A click here opens a file chooser (a file input, or a label for one). */
  opensChooser?: boolean;
}

/**
 * One in-page check before acting: scroll into view, then visible, enabled and hit-testable at its center.
 * Returns the center in the frame's viewport coordinates.
 */
export function prepareAction(el: Element, needsEnabled: boolean): ActionPoint {
  const describe = (e: Element) => {
    let s = e.tagName.toLowerCase();
    if (e.id) s += `#${e.id}`;
    const cls = typeof e.className === 'string' ? e.className.trim().split(/\s+/).filter(Boolean).slice(0, 2) : [];
    if (cls.length) s += `.${cls.join('.')}`;
    return `<${s}>`;
  };
  if (!el.isConnected) return { ok: false, x: 0, y: 0, reason: 'element is no longer attached to the page' };
  if (!el.checkVisibility({ visibilityProperty: true, opacityProperty: false })) {
    return { ok: false, x: 0, y: 0, reason: 'element is not visible' };
  }
  if (needsEnabled) {
    const disabled =
      ('disabled' in el && (el as HTMLButtonElement).disabled === true) ||
      el.getAttribute('aria-disabled') === 'true' ||
      (el.closest('fieldset:disabled') !== null && /^(INPUT|SELECT|TEXTAREA|BUTTON)$/.test(el.tagName));
    if (disabled) return { ok: false, x: 0, y: 0, reason: 'element is disabled' };
  }
  let rect = el.getBoundingClientRect();
  const inView = rect.top >= 0 && rect.left >= 0 && rect.bottom <= innerHeight && rect.right <= innerWidth;
  if (!inView) {
    el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
    rect = el.getBoundingClientRect();
  }
  if (rect.width === 0 || rect.height === 0) {
    // Inline elements split across lines: use the first box that has a size.
    const box = Array.from(el.getClientRects()).find((r) => r.width > 0 && r.height > 0);
    if (!box) return { ok: false, x: 0, y: 0, reason: 'element has no size' };
    rect = box;
  }
  const x = rect.left + rect.width / 2;
  const y = rect.top + rect.height / 2;
  const root = el.getRootNode() as Document | ShadowRoot;
  const hit = root.elementFromPoint ? root.elementFromPoint(x, y) : document.elementFromPoint(x, y);
  if (hit && hit !== el && !el.contains(hit)) {
    // A label for the control receives the click on its behalf.
    const label = hit.closest('label');
    if (!(label && (label as HTMLLabelElement).control === el)) {
      return { ok: false, x, y, reason: `another element would receive the click: ${describe(hit)}` };
    }
  }
  const control = el instanceof HTMLLabelElement ? el.control : el;
  return { ok: true, x, y, opensChooser: control instanceof HTMLInputElement && control.type === 'file' };
}

/** Readable text of the page or an element (what a person sees, laid out). */
export function readableText(el: Element | null): string {
  const target = (el ?? document.body ?? document.documentElement) as HTMLElement;
  return (target.innerText ?? target.textContent ?? '').replace(/\n{3,}/g, '\n\n').trim();
}
