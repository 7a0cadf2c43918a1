import { describe, expect, it } from 'vitest';
import { call, callError, refOf, useHarness } from './harness.js';

const h = useHarness();

describe('browser_snapshot', () => {
  it('renders roles, names, states and refs in the ARIA YAML form', async () => {
    const s = await h.session();
    const text = await call(s, 'browser_navigate', { url: h.server.url('/form.html') });
    expect(text).toContain(`### Page\n- Page URL: ${h.server.url('/form.html')}`);
    expect(text).toContain('- Page Title: Form');
    // A heading is read, not acted on: no ref unless the page makes it clickable.
    expect(text).toMatch(/- heading "Sign up" \[level=1\]$/m);
    expect(text).toMatch(/- textbox "Name" \[ref=e\d+\]/);
    expect(text).toMatch(/- combobox "Color" \[ref=e\d+\]: Red/);
    expect(text).toMatch(/- checkbox "I agree" \[ref=e\d+\]/);
    expect(text).toMatch(/- slider "Volume" \[ref=e\d+\]: 10/);
    expect(text).toMatch(/- button "Disabled action" \[disabled\] \[ref=e\d+\]/);
    expect(text).toMatch(/- group "Size":\n\s+- radio "Small" \[ref=e\d+\]\n/);
    // Label and legend text that is already a control's or group's name is not written again.
    expect(text).not.toMatch(/- text: (Name|Email|Color|I agree|Size|Small|Volume)$/m);
  });

  it('gives a container a ref where it is named or long enough to read alone, and a heading none', async () => {
    const s = await h.session();
    const home = await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    // Named by the page: a target of its own. Its three links are read at a glance: the list around them gets no ref.
    expect(home).toMatch(/- navigation "Pages" \[ref=e\d+\]:\n\s+- list:\n\s+- link "Form" \[ref=e\d+\]/);
    expect(home).toMatch(/- heading "Fixture home" \[level=1\]$/m);
    // With a depth limit every container it cuts keeps a ref, to be read with target.
    expect(await call(s, 'browser_snapshot', { depth: 1, target: refOf(home, 'navigation "Pages"') })).toMatch(/- list \[ref=e\d+\]: …/);
    const table = await call(s, 'browser_navigate', { url: h.server.url('/table?rows=40') });
    expect(table).toMatch(/^- table \[ref=e\d+\]:$/m);
  });

  it('leaves out what holds nothing: an empty live region, list or paragraph (a chat before its first message)', async () => {
    const s = await h.session();
    await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    await call(s, 'browser_evaluate', {
      function: `() => document.body.insertAdjacentHTML('beforeend', '<div role="log" aria-live="polite"></div><ul></ul><p></p><div role="status">Saved</div><hr>')`,
    });
    const snap = await call(s, 'browser_snapshot');
    expect(snap).not.toMatch(/- (log|list|paragraph)$/m);
    // What says something stays: a status with words, a separator.
    expect(snap).toMatch(/- status: Saved\n- separator\n```/);
  });

  it('reads states from live properties and aria attributes alike', async () => {
    const s = await h.session();
    const text = await call(s, 'browser_navigate', { url: h.server.url('/states.html') });
    expect(text).toMatch(/- heading "Settings" \[level=2\]$/m);
    // Attribute-less controls inside a disabled fieldset are disabled too.
    expect(text).toMatch(/- button "Save" \[disabled\] \[ref=e\d+\]/);
    expect(text).toMatch(/- textbox \[disabled\] \[ref=e\d+\]/);
    expect(text).toMatch(/- option "Two" \[selected\] \[ref=e\d+\]/);
    expect(text).toMatch(/- option "One" \[ref=e\d+\]$/m);
    expect(text).toMatch(/- button "Bold" \[pressed\] \[ref=e\d+\]/);
    expect(text).toMatch(/- button "Menu" \[expanded\] \[ref=e\d+\]/);
    expect(text).toMatch(/- checkbox "All" \[checked=mixed\] \[ref=e\d+\]/);
    expect(text).toMatch(/- textbox \[ref=e\d+\]: typed by script/);
    expect(text).toMatch(/- progressbar: 3$/m);
    expect(text).toMatch(/- textbox "Search" \[active\] \[ref=e\d+\]/);
    // Label text stays where it is the only place it shows: its control is hidden, or named otherwise.
    expect(text).toMatch(/- paragraph: Remember me$/m);
    expect(text).toMatch(/- paragraph:\n\s+- text: Phone\n\s+- textbox "Mobile number" \[ref=e\d+\]/);
  });

  it('leaves out hidden elements', async () => {
    const s = await h.session();
    const text = await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    expect(text).toContain('button "Click me"');
    expect(text).not.toContain('Hidden button');
  });

  /** The snapshot of a page made of `html`, in a fresh session. */
  const snapshotOfHtml = async (html: string) => {
    const s = await h.session();
    await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    await s.tabs[0]!.page.setContent(html);
    return call(s, 'browser_snapshot');
  };

  it('leaves out text under visibility: hidden, but shows what is made visible again inside it', async () => {
    const text = await snapshotOfHtml(
      '<p>a <span style="visibility:hidden">secret</span> b <span style="visibility:hidden">x<span style="visibility:visible">shown</span></span></p>' +
        '<div style="display:contents;visibility:hidden">unseen<button style="visibility:visible">Go</button></div>' +
        '<div style="display:contents">kept</div><p>c<span style="display:none">gone</span>d</p>',
    );
    expect(text).toContain('- paragraph: a b shown\n');
    expect(text).toMatch(/- button "Go" \[ref=e\d+\]\n- text: kept\n- paragraph: cd\n/);
    for (const hidden of ['secret', ' x ', 'unseen', 'gone']) expect(text).not.toContain(hidden);
  });

  it('reads text as the page shows it: inline elements run on, block-level ones and line breaks keep words apart', async () => {
    const text = await snapshotOfHtml(
      '<p>Call <em>this</em>, then H<sub>2</sub>O and <span>$</span><span>5</span>.</p>' +
        '<p><span style="display:block">one</span><span style="display:inline-block">two</span><span style="display:contents">three</span>four</p>' +
        '<p>up<br>down</p><div><div>first</div><div>second</div></div>' +
        '<a href="/x">Run <code>cargo</code>()</a><a href="/y"><span>Read</span><div>more</div></a>' +
        '<p>  spaced \n\t out  <b> bold </b>end</p>',
    );
    expect(text).toContain('- paragraph: Call this, then H2O and $5.\n');
    expect(text).toContain('- paragraph: one two threefour\n');
    expect(text).toContain('- paragraph: up down\n- text: first second\n');
    expect(text).toMatch(/- link "Run cargo\(\)" \[ref=e\d+\]/);
    expect(text).toMatch(/- link "Read more" \[ref=e\d+\]/);
    expect(text).toContain('- paragraph: spaced out bold end\n');
  });

  it('writes inline code into its line of text in backticks; a block of code, a named or clickable one stays a line of its own', async () => {
    const long = 'word '.repeat(79);
    const text = await snapshotOfHtml(
      '<p>Call <code>first_word</code> on a <code>&amp;str</code>.</p>' +
        '<pre><code>fn main() {}</code></pre>' +
        '<p>See <code aria-label="the type">T</code> and <code onclick="1">run()</code> here</p>' +
        `<p>${long}<code>tail</code> end</p>` +
        '<h2><code>Vec&lt;T&gt;</code> basics</h2><a href="/v"><code>Vec</code></a>',
    );
    expect(text).toContain('- paragraph: Call `first_word` on a `&str`.\n');
    expect(text).toContain('- code: fn main() {}\n');
    expect(text).toMatch(
      /- paragraph:\n {2}- text: See\n {2}- code "the type": T\n {2}- text: and\n {2}- code \[clickable\] \[ref=e\d+\]: run\(\)\n {2}- text: here\n/,
    );
    // A run would pass the cut with the code in it: the text is written first, nothing of it cut, the code after it.
    expect(text).toContain(`- paragraph:\n  - text: ${long.trim()}\n  - text: "\`tail\` end"\n`);
    // Names are the words a person reads, without the backticks; a heading or link says its code once.
    expect(text).toContain('- heading "Vec<T> basics" [level=2]\n');
    expect(text).toMatch(/- link "Vec" \[ref=e\d+\]\n/);
  });

  it('names controls with the label text a person sees; a hidden label still names', async () => {
    const text = await snapshotOfHtml(
      '<label>Email <span style="display:none">(required)</span><input></label>' +
        '<label for="p">Pass<span style="visibility:hidden">word hint</span></label><input id="p">' +
        '<span id="hid" style="display:none">Hidden name</span><input aria-labelledby="hid">' +
        '<span id="vis">Phone <b style="display:none">secret</b></span><input aria-labelledby="vis">' +
        '<fieldset><legend>Size <span hidden>old</span></legend><input type="radio" aria-label="S"></fieldset>' +
        '<table><caption>Prices <span style="display:none">draft</span></caption><tr><td>1</td></tr></table>' +
        // Label text reads as the snapshot's text does: block-level parts keep words apart, inline ones run on.
        '<label for="f"><div>First</div><div>name</div></label><input id="f">' +
        '<span id="cost"><span>$</span><span>5</span><br>each</span><input aria-labelledby="cost">',
    );
    const names = [
      'textbox "Email"',
      'textbox "Pass"',
      'textbox "Hidden name"',
      'textbox "Phone"',
      'group "Size"',
      'table "Prices"',
      'textbox "First name"',
      'textbox "$5 each"',
    ];
    for (const name of names) {
      expect(text).toMatch(new RegExp(`- ${name.replace(/[$()]/g, '\\$&')}( \\[ref=e\\d+\\])?:?\n`));
    }
    for (const hidden of ['required', 'word hint', 'secret', 'old', 'draft']) expect(text).not.toContain(hidden);
  });

  it('keeps refs stable across snapshots while the element lives', async () => {
    const s = await h.session();
    const first = await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    const ref = refOf(first, 'button "Click me"');
    await call(s, 'browser_evaluate', { function: "() => document.body.insertAdjacentHTML('afterbegin', '<button>New one</button>')" });
    const second = await call(s, 'browser_snapshot');
    expect(refOf(second, 'button "Click me"')).toBe(ref);
    expect(refOf(second, 'button "New one"')).not.toBe(ref);
  });

  it('answers a stale ref with a clear error, never another element', async () => {
    const s = await h.session();
    const snap = await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    const ref = refOf(snap, 'button "Click me"');
    await call(s, 'browser_evaluate', { function: "() => document.getElementById('counter').remove()" });
    expect(await callError(s, 'browser_click', { target: ref })).toContain(`ref ${ref} is no longer on the page — take a new snapshot`);
    // After a navigation the same ref number must not reach an element of the new document.
    await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    expect(await callError(s, 'browser_click', { target: ref })).toContain('is no longer on the page');
  });

  it('includes same- and cross-origin iframes with prefixed refs that can be clicked', async () => {
    const s = await h.session();
    const snap = await call(s, 'browser_navigate', { url: h.server.url('/frames.html') });
    expect(snap).toMatch(/- iframe "Same origin" \[ref=e\d+\]:\n\s+- button "Inner button" \[ref=f\d+e\d+\]/);
    expect(snap).toMatch(/- iframe "Cross origin" \[ref=e\d+\]:\n\s+- button "Inner button" \[ref=f\d+e\d+\]/);
    const refs = [...snap.matchAll(/button "Inner button" \[ref=(f\d+e\d+)\]/g)].map((m) => m[1]!);
    expect(refs).toHaveLength(2);
    const crossClick = await call(s, 'browser_click', { target: refs[1]!, element: 'cross-origin inner button' });
    expect(crossClick).toContain(`inner clicked at ${new URL(h.server.crossOrigin).host}`);
    const sameClick = await call(s, 'browser_click', { target: refs[0]! });
    expect(sameClick).toContain(`inner clicked at ${new URL(h.server.origin).host}`);
  });

  it('includes open shadow roots', async () => {
    const s = await h.session();
    const snap = await call(s, 'browser_navigate', { url: h.server.url('/frames.html') });
    const after = await call(s, 'browser_click', { target: refOf(snap, 'button "Shadow button"') });
    expect(after).toContain('shadow clicked');
  });

  it('cuts a big page at the size budget with a note on how to see the rest', async () => {
    const s = await h.session({ snapshotMaxChars: 5_000 });
    const text = await call(s, 'browser_navigate', { url: h.server.url('/table?rows=300') });
    const snapshot = /```yaml\n([\s\S]*)\n```/.exec(text)![1]!;
    expect(snapshot.length).toBeLessThanOrEqual(5_000 + 300);
    expect(snapshot).toMatch(
      /Snapshot cut at 5000 characters; the rest of the page is not shown\. Use browser_snapshot with target=<ref> or depth=<n>.*browser_find/,
    );
    // Cut on a node boundary: every line but the note is a whole node line.
    for (const line of snapshot.split('\n')) expect(line).toMatch(/^\s*- /);
    // The walk stops soon after the budget, and what it shows is the start of the whole snapshot, unchanged.
    const uncut = await h.session({ snapshotMaxChars: Infinity, includeSnapshot: false });
    await call(uncut, 'browser_navigate', { url: h.server.url('/table?rows=300') });
    const whole = /```yaml\n([\s\S]*)\n```/.exec(await call(uncut, 'browser_snapshot'))![1]!;
    const shown = snapshot.split('\n').slice(0, -1).join('\n');
    expect(shown.length).toBeGreaterThan(4_000);
    expect(whole.startsWith(`${shown}\n`)).toBe(true);
    // With depth the whole (shallow) tree is walked, and the note counts what it left out.
    const shallow = await call(s, 'browser_snapshot', { depth: 3 });
    expect(shallow).toMatch(/Snapshot cut at 5000 characters; \d+ more lines not shown\./);
  });

  it('names every interactive element of the uncut big table', async () => {
    const s = await h.session({ snapshotMaxChars: Infinity, includeSnapshot: false });
    await call(s, 'browser_navigate', { url: h.server.url('/table?rows=300') });
    const snap = await call(s, 'browser_snapshot');
    for (const i of [1, 150, 300]) {
      expect(snap).toMatch(new RegExp(`- link "Item ${i}" \\[ref=e\\d+\\]$`, 'm'));
      expect(snap).toMatch(new RegExp(`- button "Edit ${i}" \\[ref=e\\d+\\]`));
      expect(snap).toMatch(new RegExp(`- textbox "Quantity ${i}" \\[ref=e\\d+\\]: ${i % 10}$`, 'm'));
    }
    expect(snap).not.toContain('Snapshot cut');
  });

  it('brings a snapshot bigger than one CDP part whole, and leaves nothing parked in the page', async () => {
    const s = await h.session({ snapshotMaxChars: Infinity, includeSnapshot: false });
    await call(s, 'browser_navigate', { url: h.server.url('/table?rows=3000') });
    const snap = await call(s, 'browser_snapshot');
    // The same walk, its parts joined inside the page: what arrived is every part, in order.
    const inPage = await s.tabs[0]!.page.evaluate(() => {
      type Api = {
        walkPage(o: object): { text: string; more?: { id: string; parts: number } };
        parcelPart(id: string, i: number): string;
        parkedCount(): number;
      };
      const api = (globalThis as unknown as Record<symbol, Api>)[Symbol.for('browsermcp.injected')]!;
      const parked = api.parkedCount();
      const { text, more } = api.walkPage({ seed: 1, prefix: '' });
      let whole = text;
      for (let i = 0; i < (more?.parts ?? 0); i++) whole += api.parcelPart(more!.id, i);
      return { parked, parts: more?.parts ?? 1, whole };
    });
    expect(inPage.parked).toBe(0);
    expect(inPage.parts).toBeGreaterThan(2);
    expect(snap).toContain(inPage.whole);
    expect(snap).toMatch(/- button "Edit 3000" \[ref=e\d+\]/);
  });

  it('writes a link url only where the name does not tell it; browser_find shows every url', async () => {
    const s = await h.session({ includeSnapshot: false });
    await call(s, 'browser_navigate', { url: h.server.url('/links.html') });
    const snap = await call(s, 'browser_snapshot');
    // A unique name on this origin, and two same-named links to one place: the name is enough.
    expect(snap).toMatch(/- link "About us" \[ref=e\d+\]$/m);
    expect(snap).toMatch(/- link "Home" \[ref=e\d+\]\n.*- link "Home" \[ref=e\d+\]$/m);
    // A link and a role="link" element (no url) named alike: the url tells them apart.
    expect(snap).toMatch(/- link "Pricing" \[ref=e\d+\] \[url=\/pricing\]/);
    expect(snap).toMatch(/- link "Pricing" \[ref=e\d+\]$/m);
    // Same name, different places; another origin; another scheme; no name: the url says what the name does not.
    expect(snap).toMatch(/- link "Read more" \[ref=e\d+\] \[url=\/news\/1\]/);
    expect(snap).toMatch(/- link "Read more" \[ref=e\d+\] \[url=\/news\/2\]/);
    expect(snap).toMatch(/- link "Docs" \[ref=e\d+\] \[url=http:\/\/localhost:\d+\/docs\]/);
    expect(snap).toMatch(/- link "Write to us" \[ref=e\d+\] \[url=mailto:team@example.test\]/);
    expect(snap).toMatch(/- link \[ref=e\d+\] \[url=\/logo\]/);
    const found = await call(s, 'browser_find', { text: '/pricing' });
    expect(found).toMatch(/1 match:\n- link "Pricing" \[ref=e\d+\] \[url=\/pricing\]/);
  });

  it('renders only a target subtree, or only some levels with depth', async () => {
    const s = await h.session();
    const snap = await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    const nav = refOf(snap, 'navigation "Pages"');
    const part = await call(s, 'browser_snapshot', { target: nav });
    expect(part).toContain('link "Form"');
    expect(part).not.toContain('Click me');
    const byCss = await call(s, 'browser_snapshot', { target: 'nav' });
    expect(byCss).toContain('link "Dialogs"');
    const shallow = await call(s, 'browser_snapshot', { depth: 1 });
    expect(shallow).toMatch(/- navigation "Pages" \[ref=e\d+\]:\n\s+- list \[ref=e\d+\]: …/);
    expect(shallow).not.toContain('link "Form"');
  });

  it('refuses bad targets and depths with the reason', async () => {
    const s = await h.session();
    await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    expect(await callError(s, 'browser_snapshot', { target: 'e99999' })).toContain('ref e99999 is no longer on the page');
    expect(await callError(s, 'browser_snapshot', { target: '#nope' })).toContain('No element matches the selector "#nope"');
    expect(await callError(s, 'browser_snapshot', { target: '[[[' })).toContain('neither a ref from the snapshot');
    expect(await callError(s, 'browser_snapshot', { depth: 0 })).toContain('"depth"');
    expect(await callError(s, 'browser_snapshot', { depth: 'deep' })).toContain('"depth"');
  });
});

describe('browser_find', () => {
  it('finds text and names on a big page, with refs and their context', async () => {
    const s = await h.session({ includeSnapshot: false });
    await call(s, 'browser_navigate', { url: h.server.url('/table?rows=3000') });
    const found = await call(s, 'browser_find', { text: 'item 2999' });
    expect(found).toMatch(/- link "Item 2999" \[ref=e\d+\]/);
    expect(found).toMatch(/\(in: table \[ref=e\d+\]\)/);
    const byText = await call(s, 'browser_find', { text: 'item number 2999' });
    expect(byText).toContain('- cell "Description of item number 2999"');
    const byRegex = await call(s, 'browser_find', { regex: '^button "Edit 4\\d"$' });
    expect(byRegex).toMatch(/^10 matches:/m);
    const none = await call(s, 'browser_find', { text: 'no such thing' });
    expect(none).toContain('No element or text matches "no such thing"');
    const limited = await call(s, 'browser_find', { text: 'Edit', limit: 3 });
    expect(limited).toContain('3000 matches (showing 3;');
  });

  it('refuses zero or two queries and bad regexes', async () => {
    const s = await h.session();
    await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    expect(await callError(s, 'browser_find', {})).toContain('Pass exactly one of text or regex');
    expect(await callError(s, 'browser_find', { text: 'a', regex: 'b' })).toContain('Pass exactly one of text or regex');
    expect(await callError(s, 'browser_find', { regex: '(' })).toContain('not a valid regular expression');
  });
});

describe('browser_get_text', () => {
  it('reads the page or one element as laid out', async () => {
    const s = await h.session();
    const snap = await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    const page = await call(s, 'browser_get_text');
    expect(page).toContain('Welcome to the fixture site.');
    expect(page).not.toContain('Hidden button');
    const nav = await call(s, 'browser_get_text', { target: refOf(snap, 'navigation "Pages"') });
    expect(nav).toMatch(/Form\s+Dialogs\s+Frames/);
    expect(nav).not.toContain('Welcome');
    expect(await callError(s, 'browser_get_text', { target: '#missing' })).toContain('No element matches');
  });
});

describe('a page that has not changed', () => {
  type Stats = { walks: number; reused: number };
  const pageOf = (s: Awaited<ReturnType<typeof h.session>>) => s.tabs[0]!.page;
  const stats = (s: Awaited<ReturnType<typeof h.session>>) =>
    pageOf(s).evaluate(() => (globalThis as unknown as Record<symbol, { walkStats(): Stats }>)[Symbol.for('browsermcp.injected')]!.walkStats());
  const snapshotOf = (answer: string) => answer.split('### Snapshot\n')[1]!;

  it('answers the same snapshot without walking the page again, and sees each kind of change', async () => {
    const s = await h.session();
    await call(s, 'browser_navigate', { url: h.server.url('/form.html') });
    const first = snapshotOf(await call(s, 'browser_snapshot'));
    const before = await stats(s);
    expect(snapshotOf(await call(s, 'browser_snapshot'))).toBe(first);
    expect(await stats(s)).toEqual({ walks: before.walks, reused: before.reused + 1 });

    // A DOM change.
    await pageOf(s).evaluate(() => void (document.querySelector('h1')!.textContent = 'Join us'));
    expect(await call(s, 'browser_snapshot')).toMatch(/heading "Join us" \[level=1\]/);
    // A value and a checkbox set by a script: no event, no mutation.
    await call(s, 'browser_snapshot');
    await pageOf(s).evaluate(() => {
      (document.querySelector('#name') as HTMLInputElement).value = 'set by script';
      (document.querySelector('input[name=agree]') as HTMLInputElement).checked = true;
    });
    const scripted = await call(s, 'browser_snapshot');
    expect(scripted).toMatch(/textbox "Name" \[ref=e\d+\]: set by script/);
    expect(scripted).toMatch(/checkbox "I agree" \[checked\] \[ref=e\d+\]/);
    // Focus moved by a script.
    await pageOf(s).evaluate(() => (document.querySelector('textarea') as HTMLTextAreaElement).focus());
    expect(await call(s, 'browser_snapshot')).toMatch(/textbox "Bio" \[active\] \[ref=e\d+\]/);
    // Boxes move with layout and scrolling: never reused.
    const boxed = await stats(s);
    await call(s, 'browser_snapshot', { boxes: true });
    await call(s, 'browser_snapshot', { boxes: true });
    expect((await stats(s)).walks).toBe(boxed.walks + 2);
  });

  it('sees a rule added through the CSSOM, which changes no DOM', async () => {
    const s = await h.session();
    await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    expect(await call(s, 'browser_snapshot')).toContain('Click me');
    await pageOf(s).evaluate(() => {
      const sheet = new CSSStyleSheet();
      document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
    });
    await call(s, 'browser_snapshot');
    await pageOf(s).evaluate(() => document.adoptedStyleSheets.at(-1)!.insertRule('button { display: none }'));
    expect(await call(s, 'browser_snapshot')).not.toContain('Click me');
  });

  it('sees a hover rule added through the CSSOM: its trigger gets a ref to hover', async () => {
    const s = await h.session();
    const menu = await call(s, 'browser_navigate', {
      url: 'data:text/html,<style>.sub { display: none }</style><ul><li>Menu<ul class="sub"><li>Item</li></ul></li></ul>',
    });
    expect(menu).not.toContain('[hoverable]');
    await pageOf(s).evaluate(() => document.styleSheets[0]!.insertRule('li:hover > .sub { display: block }', 1));
    expect(await call(s, 'browser_snapshot')).toMatch(/listitem \[hoverable\] \[ref=e\d+\]: Menu/);
  });

  it('sees a change inside a shadow root, and walks a new document afresh', async () => {
    const s = await h.session();
    await call(s, 'browser_navigate', { url: h.server.url('/frames.html') });
    expect(await call(s, 'browser_snapshot')).toContain('button "Shadow button"');
    await pageOf(s).evaluate(() => {
      const host = [...document.querySelectorAll('*')].find((e) => e.shadowRoot)!;
      host.shadowRoot!.querySelector('button')!.textContent = 'Renamed in the shadow';
    });
    expect(await call(s, 'browser_snapshot')).toContain('button "Renamed in the shadow"');
    await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    const home = await call(s, 'browser_snapshot');
    expect(home).toContain('button "Click me"');
    expect(home).not.toContain('Shadow');
  });
});
