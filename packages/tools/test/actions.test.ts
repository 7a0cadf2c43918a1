import { describe, expect, it } from 'vitest';
import { call, callError, refOf, useHarness } from './harness.js';

const h = useHarness();

describe('browser_click', () => {
  it('clicks and returns the page as the click left it', async () => {
    const s = await h.session();
    const snap = await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    const after = await call(s, 'browser_click', { target: refOf(snap, 'button "Click me"'), element: 'counter button' });
    // The code line says what was clicked, as @playwright/mcp answers: no words repeating it.
    expect(after).toMatch(/^### Ran Playwright code\n```js\nawait page\.getByRole\('button', \{ name: 'Click me' \}\)\.click\(\);\n```\n/);
    expect(after).toContain('button "Clicked 1 times"');
    const twice = await call(s, 'browser_click', { target: '#counter', doubleClick: true });
    expect(twice).toContain('.dblclick();');
    expect(twice).toContain('button "Clicked 3 times"');
  });

  it('says what it clicked in words where no code line does (--codegen none)', async () => {
    const s = await h.session({ codegen: 'none' });
    const snap = await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    const after = await call(s, 'browser_click', { target: refOf(snap, 'button "Click me"'), element: 'counter button' });
    expect(after).toMatch(/^### Result\nClicked counter button \(e\d+\)\n/);
    expect(after).not.toContain('### Ran Playwright code');
    expect(await call(s, 'browser_click', { target: '#counter', doubleClick: true })).toContain('Double-clicked #counter');
  });

  it('follows a link and waits for the new page', async () => {
    const s = await h.session();
    await call(s, 'browser_navigate', { url: h.server.url('/table?rows=5') });
    const after = await call(s, 'browser_click', { target: 'a[href="/item/3"]' });
    expect(after).toContain(`- Page URL: ${h.server.url('/item/3')}`);
    expect(after).toContain('heading "Item 3"');
    const back = await call(s, 'browser_navigate_back');
    expect(back).toContain('- Page Title: Table 5');
    const forward = await call(s, 'browser_navigate_forward');
    expect(forward).toContain('- Page Title: Item 3');
    // The ends of the history: said, and the tab stays where it is (not back to the blank page a tab starts on).
    expect(await call(s, 'browser_navigate_forward')).toContain(`### Result\nThere is no next page in this tab: it stays on ${h.server.url('/item/3')}.`);
    await call(s, 'browser_navigate_back');
    expect(await call(s, 'browser_navigate_back')).toContain(
      `### Result\nThere is no previous page in this tab: it stays on ${h.server.url('/table?rows=5')}.`,
    );
    expect(s.tabs[0]!.page.url()).toBe(h.server.url('/table?rows=5'));
  });

  it('waits for the request a click started and the DOM it changed', async () => {
    const s = await h.session();
    const snap = await call(s, 'browser_navigate', { url: h.server.url('/spa.html') });
    const after = await call(s, 'browser_click', { target: refOf(snap, 'button "Load data"') });
    expect(after).toContain('heading "Loaded view"');
  });

  it('follows an SPA route change', async () => {
    const s = await h.session();
    const snap = await call(s, 'browser_navigate', { url: h.server.url('/spa.html') });
    const after = await call(s, 'browser_click', { target: refOf(snap, 'link "Settings"') });
    expect(after).toContain(`- Page URL: ${h.server.url('/spa/settings')}`);
    expect(after).toContain('heading "Settings view"');
  });

  it('waits for an element that becomes visible and clickable', async () => {
    const s = await h.session();
    await call(s, 'browser_navigate', { url: h.server.url('/covered.html') });
    const after = await call(s, 'browser_click', { target: '#late' });
    expect(after).toContain('late clicked');
  });

  it('refuses a covered element, naming what covers it', async () => {
    const s = await h.session({ actionTimeoutMs: 300 });
    await call(s, 'browser_navigate', { url: h.server.url('/covered.html') });
    const error = await callError(s, 'browser_click', { target: '#under', element: 'Under button' });
    expect(error).toContain('Could not act on Under button (#under): another element would receive the click: <div#overlay>');
  });

  it('refuses a disabled element', async () => {
    const s = await h.session({ actionTimeoutMs: 200 });
    const snap = await call(s, 'browser_navigate', { url: h.server.url('/form.html') });
    const error = await callError(s, 'browser_click', { target: refOf(snap, 'Disabled action') });
    expect(error).toContain('element is disabled');
  });

  it('holds modifiers and uses other buttons', async () => {
    const s = await h.session();
    await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    await call(s, 'browser_evaluate', {
      function:
        "() => { window.seen = []; document.getElementById('counter').addEventListener('mousedown', (e) => window.seen.push(e.button + ':' + e.shiftKey)); }",
    });
    await call(s, 'browser_click', { target: '#counter', button: 'right', modifiers: ['Shift'] });
    expect(await call(s, 'browser_evaluate', { function: '() => window.seen' })).toContain('"2:true"');
  });

  it('refuses bad arguments with the reason', async () => {
    const s = await h.session();
    expect(await callError(s, 'browser_click', {})).toContain('Invalid arguments for browser_click: "target"');
    expect(await callError(s, 'browser_click', { target: '' })).toContain('target must not be empty');
    expect(await callError(s, 'browser_click', { target: 'e1', button: 'side' })).toContain('"button"');
    expect(await callError(s, 'browser_click', { target: 'e1', modifiers: ['Hyper'] })).toContain(
      '"modifiers[0]" must be "Alt", "Control", "ControlOrMeta", "Meta" or "Shift"',
    );
  });
});

describe('typing and forms', () => {
  it('types into a text box, replacing its value, and submits', async () => {
    const s = await h.session();
    const snap = await call(s, 'browser_navigate', { url: h.server.url('/form.html') });
    const name = refOf(snap, 'textbox "Name"');
    await call(s, 'browser_type', { target: name, text: 'first' });
    const typed = await call(s, 'browser_type', { target: name, text: 'Ada Lovelace', submit: true });
    expect(typed).toContain('textbox "Name" [active] [ref=');
    expect(typed).toContain('Ada Lovelace');
    expect(await call(s, 'browser_get_text', { target: '#out' })).toContain('"name":"Ada Lovelace"');
  });

  it('types slowly, key by key', async () => {
    const s = await h.session();
    await call(s, 'browser_navigate', { url: h.server.url('/form.html') });
    await call(s, 'browser_evaluate', {
      function: "() => { window.keys = 0; document.getElementById('name').addEventListener('keydown', () => window.keys++); }",
    });
    await call(s, 'browser_type', { target: '#name', text: 'abc', slowly: true });
    expect(await call(s, 'browser_evaluate', { function: "() => [window.keys, document.getElementById('name').value]" })).toMatch(/3,\s*"abc"/);
  });

  it('refuses to type into something that is not a text field', async () => {
    const s = await h.session();
    await call(s, 'browser_navigate', { url: h.server.url('/form.html') });
    expect(await callError(s, 'browser_type', { target: '#color', text: 'x' })).toContain('is not a text field');
  });

  it('fills a whole form: text, checkbox, radio, select and slider', async () => {
    const s = await h.session();
    const snap = await call(s, 'browser_navigate', { url: h.server.url('/form.html') });
    const filled = await call(s, 'browser_fill_form', {
      fields: [
        { target: refOf(snap, 'textbox "Name"'), name: 'Name', type: 'textbox', value: 'Grace' },
        { target: refOf(snap, 'textbox "Email"'), name: 'Email', type: 'textbox', value: 'g@example.com' },
        { target: refOf(snap, 'checkbox "I agree"'), name: 'Agree', type: 'checkbox', value: 'true' },
        { target: refOf(snap, 'radio "Large"'), name: 'Large', type: 'radio', value: 'true' },
        { target: refOf(snap, 'combobox "Color"'), name: 'Color', type: 'combobox', value: 'Blue' },
        { target: refOf(snap, 'slider "Volume"'), name: 'Volume', type: 'slider', value: '70' },
      ],
    });
    expect(filled).toContain("await page.getByRole('textbox', { name: 'Name' }).fill('Grace');");
    expect(filled).toMatch(/checkbox "I agree" \[checked\]/);
    expect(filled).toMatch(/radio "Large" \[checked\]/);
    expect(filled).toMatch(/combobox "Color" \[ref=e\d+\]: Blue/);
    await call(s, 'browser_click', { target: refOf(snap, 'button "Submit"') });
    const out = await call(s, 'browser_get_text', { target: '#out' });
    expect(out).toContain('"name":"Grace","email":"g@example.com","bio":"","color":"b","agree":"yes","size":"l","volume":"70"');
  });

  it('refuses wrong field values with the reason', async () => {
    const s = await h.session();
    await call(s, 'browser_navigate', { url: h.server.url('/form.html') });
    const bad = await callError(s, 'browser_fill_form', { fields: [{ target: 'input[name=agree]', name: 'Agree', type: 'checkbox', value: 'yes' }] });
    expect(bad).toContain('value must be "true" or "false" for a checkbox');
    expect(await callError(s, 'browser_fill_form', { fields: [] })).toContain('fields needs at least one field');
    expect(await callError(s, 'browser_fill_form', { fields: [{ target: '#name', name: 'n', type: 'date', value: 'x' }] })).toContain(
      '"fields[0].type" must be "textbox", "checkbox", "radio", "combobox" or "slider"',
    );
    const slider = await callError(s, 'browser_fill_form', { fields: [{ target: '#volume', name: 'Volume', type: 'slider', value: 'loud' }] });
    expect(slider).toContain('"loud" is not a number');
  });

  it('selects options by value or label and lists the options when one is missing', async () => {
    const s = await h.session();
    const snap = await call(s, 'browser_navigate', { url: h.server.url('/form.html') });
    const color = refOf(snap, 'combobox "Color"');
    expect(await call(s, 'browser_select_option', { target: color, values: ['g'] })).toMatch(/combobox "Color" \[ref=e\d+\]: Green/);
    expect(await call(s, 'browser_select_option', { target: color, values: ['Blue'] })).toMatch(/: Blue$/m);
    const missing = await callError(s, 'browser_select_option', { target: color, values: ['Purple'] });
    expect(missing).toContain('has no option "Purple". Options: "Red", "Green", "Blue"');
    expect(await callError(s, 'browser_select_option', { target: '#name', values: ['x'] })).toContain('is not a <select>');
    expect(await callError(s, 'browser_select_option', { target: color, values: [] })).toContain('values needs at least one');
  });

  it('presses keys and key combinations on the focused element', async () => {
    const s = await h.session();
    await call(s, 'browser_navigate', { url: h.server.url('/form.html') });
    await call(s, 'browser_click', { target: '#keys' });
    await call(s, 'browser_press_key', { key: 'ArrowDown' });
    await call(s, 'browser_press_key', { key: 'Control+a' });
    expect(await call(s, 'browser_get_text', { target: '#keys' })).toContain('ArrowDown Ctrl+Control Ctrl+a');
    expect(await callError(s, 'browser_press_key', { key: 'Hyperspace' })).toContain('Unknown key: "Hyperspace"');
    expect(await callError(s, 'browser_press_key', { key: '' })).toContain('key must not be empty');
  });
});

describe('pointer', () => {
  it('hovers an element', async () => {
    const s = await h.session();
    await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    await call(s, 'browser_evaluate', { function: "() => { document.getElementById('counter').onmouseenter = () => { document.title = 'hovered'; }; }" });
    const text = await call(s, 'browser_hover', { target: '#counter' });
    expect(text).toContain('- Page Title: hovered');
  });

  it('drags one element onto another', async () => {
    const s = await h.session();
    await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    await call(s, 'browser_evaluate', {
      function: `() => {
        document.body.insertAdjacentHTML('beforeend', '<div id="a" style="width:50px;height:50px;background:red">A</div><div id="b" style="width:50px;height:50px;background:blue">B</div>');
        window.events = [];
        document.getElementById('a').addEventListener('mousedown', () => events.push('down-a'));
        document.getElementById('b').addEventListener('mouseup', () => events.push('up-b'));
      }`,
    });
    await call(s, 'browser_drag', { startTarget: '#a', endTarget: '#b' });
    expect(await call(s, 'browser_evaluate', { function: '() => window.events' })).toMatch(/"down-a",\s*"up-b"/);
  });

  it('drops with HTML5 drag and drop, also onto an element right below the one dragged', async () => {
    const s = await h.session();
    await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    await call(s, 'browser_evaluate', {
      function: `() => {
        document.body.insertAdjacentHTML('afterbegin', '<div id="src" draggable="true" style="height:40px;background:#fc9">Drag me</div><div id="dst" style="width:100px;height:50px;background:#9cf">Drop here</div>');
        window.dnd = [];
        const src = document.getElementById('src');
        const dst = document.getElementById('dst');
        src.addEventListener('dragstart', (e) => { dnd.push('start'); e.dataTransfer.setData('text/plain', 'x'); });
        dst.addEventListener('dragover', (e) => e.preventDefault());
        dst.addEventListener('drop', (e) => { e.preventDefault(); dnd.push('drop'); dst.textContent = 'dropped'; });
      }`,
    });
    const answer = await call(s, 'browser_drag', { startTarget: '#src', endTarget: '#dst' });
    expect(answer).toContain("await page.getByText('Drag me').dragTo(page.getByText('Drop here'));");
    expect(await call(s, 'browser_evaluate', { function: '() => window.dnd' })).toMatch(/"start",\s*"drop"/);
  });
});
