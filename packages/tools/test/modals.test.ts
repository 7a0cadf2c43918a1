import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { holdLeavePrompts, ToolError, ToolSession, WireFileAccess, type FileAccess } from '../src/index.js';
import { call, callError, refOf, useHarness } from './harness.js';

const h = useHarness();

describe('dialogs', () => {
  it('reports an alert as a modal state, refuses other tools, and accepts it', async () => {
    const s = await h.session();
    const snap = await call(s, 'browser_navigate', { url: h.server.url('/dialogs.html') });
    const clicked = await call(s, 'browser_click', { target: refOf(snap, 'button "Alert"') });
    expect(clicked).toContain('### Modal state\n- ["alert" dialog with message "Hello from alert"]: can be handled by the "browser_handle_dialog" tool');
    const refused = await callError(s, 'browser_snapshot');
    expect(refused).toContain('The page is blocked by a modal: handle it first with browser_handle_dialog.');
    const handled = await call(s, 'browser_handle_dialog', { accept: true });
    expect(handled).toContain('Accepted the alert dialog');
    expect(handled).toContain('paragraph: alert closed');
    expect(handled).not.toContain('### Modal state');
  });

  it('dismisses a confirm and answers a prompt', async () => {
    const s = await h.session();
    const snap = await call(s, 'browser_navigate', { url: h.server.url('/dialogs.html') });
    await call(s, 'browser_click', { target: refOf(snap, 'button "Confirm"') });
    expect(await call(s, 'browser_handle_dialog', { accept: false })).toContain('paragraph: cancelled');
    await call(s, 'browser_click', { target: refOf(snap, 'button "Prompt"') });
    expect(await call(s, 'browser_handle_dialog', { accept: true, promptText: 'Ada' })).toContain('paragraph: "prompt: Ada"');
  });

  it('answers at once when evaluated code opens a dialog, and the page goes on once it is handled', async () => {
    const s = await h.session();
    await call(s, 'browser_navigate', { url: h.server.url('/dialogs.html') });
    const evaluated = await call(s, 'browser_evaluate', { function: "() => { alert('from code'); return 1; }" });
    expect(evaluated).toContain('The function opened a dialog, so it has not returned.');
    expect(evaluated).toContain('### Modal state\n- ["alert" dialog with message "from code"]');
    const onElement = await callError(s, 'browser_evaluate', { function: '(el) => el.textContent', target: '#result' });
    expect(onElement).toContain('The page is blocked by a modal');
    await call(s, 'browser_handle_dialog', { accept: true });
    const confirmed = await call(s, 'browser_evaluate', { function: "(el) => { el.textContent = String(confirm('sure?')); return 2; }", target: '#result' });
    expect(confirmed).toContain('["confirm" dialog with message "sure?"]');
    expect(await call(s, 'browser_handle_dialog', { accept: true })).toContain('paragraph: "true"');
    expect(await call(s, 'browser_evaluate', { function: '() => document.title' })).toContain('"Dialogs"');
  });

  it('says so when there is no dialog to handle', async () => {
    const s = await h.session();
    await call(s, 'browser_navigate', { url: h.server.url('/dialogs.html') });
    expect(await callError(s, 'browser_handle_dialog', { accept: true })).toContain('No dialog is open');
    expect(await callError(s, 'browser_handle_dialog', {})).toContain('"accept"');
  });

  it('navigating away dismisses an open dialog', async () => {
    const s = await h.session();
    const snap = await call(s, 'browser_navigate', { url: h.server.url('/dialogs.html') });
    await call(s, 'browser_click', { target: refOf(snap, 'button "Alert"') });
    const text = await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    expect(text).toContain('- Page Title: Fixture home');
  });
});

describe('file chooser', () => {
  async function filesHost(): Promise<{ files: FileAccess; root: string }> {
    const root = await mkdtemp(join(tmpdir(), 'bmcp-upload-'));
    await writeFile(join(root, 'hello.txt'), 'hello world');
    const files: FileAccess = {
      async resolveUpload(path) {
        if (!path.startsWith(root)) throw new ToolError(`${path} is outside the allowed upload roots (${root}).`);
        return { path };
      },
      async writeOutput(name) {
        return join(root, name);
      },
    };
    return { files, root };
  }

  it('reports the chooser and uploads the chosen file', async () => {
    const { files, root } = await filesHost();
    const s = await h.session({}, { files });
    const snap = await call(s, 'browser_navigate', { url: h.server.url('/form.html') });
    const clicked = await call(s, 'browser_click', { target: refOf(snap, 'button "Attachment"') });
    expect(clicked).toContain('[File chooser]: can be handled by the "browser_file_upload" tool');
    expect(await callError(s, 'browser_click', { target: '#name' })).toContain('handle it first with browser_file_upload');
    const refused = await callError(s, 'browser_file_upload', { paths: ['/etc/passwd'] });
    expect(refused).toContain('/etc/passwd is outside the allowed upload roots');
    const uploaded = await call(s, 'browser_file_upload', { paths: [join(root, 'hello.txt')] });
    expect(uploaded).toContain('Uploaded');
    expect(await call(s, 'browser_get_text', { target: '#out' })).toContain('files: hello.txt:11');
  });

  it('uploads contents sent with the command (a browser away from the disk), as File objects with their events', async () => {
    const files = new WireFileAccess('/srv/out');
    const s = await h.session({}, { files });
    await call(s, 'browser_navigate', { url: h.server.url('/form.html') });
    await call(s, 'browser_evaluate', {
      function:
        "() => { window.events = []; const i = document.querySelector('#upload'); i.addEventListener('input', () => events.push('input')); i.addEventListener('change', () => events.push('change')); }",
    });
    await call(s, 'browser_click', { target: '#upload' });
    files.receive([{ path: '/home/ada/cv.pdf', name: 'cv.pdf', mimeType: 'application/pdf', data: Buffer.from('%PDF-1.4 hello').toString('base64') }]);
    expect(await callError(s, 'browser_file_upload', { paths: ['/home/ada/other.pdf'] })).toContain('/home/ada/other.pdf did not come with the command');
    expect(await call(s, 'browser_file_upload', { paths: ['/home/ada/cv.pdf'] })).toContain('Uploaded /home/ada/cv.pdf');
    const seen = await call(s, 'browser_evaluate', {
      function: "async () => { const f = document.querySelector('#upload').files[0]; return [f.name, f.type, await f.text(), events.join(',')].join('|'); }",
    });
    expect(seen).toContain('"cv.pdf|application/pdf|%PDF-1.4 hello|input,change"');
    expect(await call(s, 'browser_get_text', { target: '#out' })).toContain('files: cv.pdf:14');
  });

  it('saves outputs for the daemon to write when the browser is away from the disk', async () => {
    const files = new WireFileAccess('/srv/out');
    const s = await h.session({}, { files });
    await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    files.receive(undefined);
    expect(await call(s, 'browser_take_screenshot', { filename: 'shots/a.png' })).toContain('Saved the screenshot to /srv/out/shots/a.png');
    const [out] = files.takeOutputs();
    expect(out?.name).toBe('shots/a.png');
    expect(Buffer.from(out!.data, 'base64').subarray(1, 4).toString()).toBe('PNG');
    expect(files.takeOutputs()).toEqual([]);
    expect(await callError(s, 'browser_take_screenshot', { filename: '../a.png' })).toContain('must be a file name inside the output directory');
    expect(files.takeOutputs()).toEqual([]);
  });

  it('cancels the chooser when no paths are given, and opens again later', async () => {
    const { files } = await filesHost();
    const s = await h.session({}, { files });
    await call(s, 'browser_navigate', { url: h.server.url('/form.html') });
    await call(s, 'browser_click', { target: '#upload' });
    expect(await call(s, 'browser_file_upload', {})).toContain('Cancelled the file chooser');
    expect(await callError(s, 'browser_file_upload', {})).toContain('No file chooser is open');
    expect(await call(s, 'browser_click', { target: '#upload' })).toContain('[File chooser]');
  });

  it("drops a chooser the page left behind: the next page's chooser opens and takes its file", async () => {
    const { files, root } = await filesHost();
    const s = await h.session({}, { files });
    await call(s, 'browser_navigate', { url: h.server.url('/form.html') });
    await call(s, 'browser_click', { target: '#upload' });
    // Navigating away leaves the open chooser's document behind, and the chooser with it.
    const away = await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    expect(away).not.toContain('[File chooser]');
    expect(await call(s, 'browser_click', { target: '#counter' })).toContain('Clicked 1 times');
    await call(s, 'browser_navigate', { url: h.server.url('/form.html') });
    expect(await call(s, 'browser_click', { target: '#upload' })).toContain('[File chooser]');
    expect(await call(s, 'browser_file_upload', { paths: [join(root, 'hello.txt')] })).toContain('Uploaded');
    expect(await call(s, 'browser_get_text', { target: '#out' })).toContain('files: hello.txt:11');
  });

  it('refuses uploads where the host gives no file access', async () => {
    const s = await h.session();
    await call(s, 'browser_navigate', { url: h.server.url('/form.html') });
    await call(s, 'browser_click', { target: '#upload' });
    expect(await callError(s, 'browser_file_upload', { paths: ['/tmp/x'] })).toContain('File upload is not available here');
  });
});

describe("a \"Leave site?\" held without Chrome's dialog (an agent's tab in the person's browser)", () => {
  it('holds the navigation as a beforeunload dialog: stay keeps the page, leave follows the link', async () => {
    // As the extension makes an agent's tab: the page cannot ask Chrome, and its requests pass the origin check.
    const context = await h.browser.createBrowserContext();
    try {
      const s = new ToolSession(
        {
          newPage: async () => {
            const page = await context.newPage();
            await holdLeavePrompts(page);
            return page;
          },
        },
        { checkUrl: () => undefined },
      );
      const snap = await call(s, 'browser_navigate', { url: h.server.url('/unsaved.html') });
      await call(s, 'browser_type', { target: refOf(snap, 'textbox "Draft"'), text: 'half a thought' });
      const asked = await call(s, 'browser_click', { target: refOf(snap, 'link "Home"') });
      expect(asked).toContain('["beforeunload" dialog with message ""]');
      const stayed = await call(s, 'browser_handle_dialog', { accept: false });
      expect(stayed).toContain('Dismissed the beforeunload dialog');
      expect(stayed).toContain('- Page Title: Unsaved draft');
      expect(await call(s, 'browser_click', { target: refOf(snap, 'link "Home"') })).toContain('["beforeunload" dialog');
      expect(await call(s, 'browser_handle_dialog', { accept: true })).toContain('- Page Title: Fixture home');
      // The agent's own navigation does not ask (as everywhere), and a page nobody typed in does not either.
      await call(s, 'browser_navigate', { url: h.server.url('/unsaved.html') });
      expect(await call(s, 'browser_click', { target: 'a' })).toContain('- Page Title: Fixture home');
    } finally {
      await context.close();
    }
  });
});
