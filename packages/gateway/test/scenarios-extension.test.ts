import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { EXTENSION_ID } from '@browsermcp/daemon';
import { formatPairingCode, newPairingSecret } from '@browsermcp/protocol';
import { freePort, rustBookPath } from '@browsermcp/testkit';
import { WebSocket, WebSocketServer } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExtensionBackend } from '../src/index.js';
import { keyFingerprint } from '../src/agent-identity.js';
import { connectClient, modernClient, text } from './helpers.js';
import {
  PERSON_RIG_KEY_LABEL,
  PERSON_RIG_KEYS,
  personModeRig,
  READABILITY_PROBLEMS,
  startPersonRig,
  type ChromeTabs,
  type PersonRig,
} from './scenarios/person-rig.js';
import { runScenarios } from './scenarios/scenarios.js';

// The shared scenarios in the person's own browser, as the person has it: the built extension in a headed Chromium
// (under Xvfb), their own tab in front of the focused window, the agents' tabs in the background where the extension
// puts them, and no browser-wide DevTools client attached. A headless Chromium with the extension runs the tool flags
// (tool-flags.test.ts).

let rig: PersonRig;

/** The big real page: the Rust book on one page, which prints itself once loaded (testkit's rustBookPath). */
const RUST_BOOK = rustBookPath();

beforeAll(async () => {
  rig = await startPersonRig({ files: RUST_BOOK ? { '/rust-book.html': RUST_BOOK } : {} });
});
afterAll(async () => {
  await rig?.close();
});

const personLooksAt = async () =>
  rig.browser.page(rig.personTabId).then(async (page) => {
    try {
      return await page.evaluate(() => ({ visible: document.visibilityState, focused: document.hasFocus() }));
    } finally {
      await page.close();
    }
  });

runScenarios('extension', () => personModeRig(rig));

it('agent tabs open in the background: the tab the person looks at stays in front, visible and focused', async () => {
  const client = await connectClient(rig.gw, 'Background agent');
  const { server } = rig;
  await client.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html') } });
  await client.callTool({ name: 'browser_tabs', arguments: { action: 'new', url: server.url('/form.html') } });
  await client.callTool({ name: 'browser_tabs', arguments: { action: 'select', index: 0 } });
  await client.callTool({ name: 'browser_click', arguments: { target: '#counter' } });
  expect(text(await client.callTool({ name: 'browser_snapshot', arguments: {} }))).toContain('button "Clicked 1 times"');
  expect(await rig.activeUrls()).toEqual([rig.personUrl]);
  expect(await personLooksAt()).toEqual({ visible: 'visible', focused: true });
  await (client.transport as StreamableHTTPClientTransport).terminateSession();
  await client.close();
});

it("the Rust book in a background tab (it prints itself once loaded): snapshot, find, text and a click answer; nothing printed, the person's tab stays in front", async () => {
  if (!RUST_BOOK) throw new Error('the Rust book comes with an installed Rust (rustup; rustc --print sysroot): install one for this test');
  const client = await connectClient(rig.gw, 'Book reader');
  const url = rig.server.url('/rust-book.html');
  try {
    const answers = [text(await client.callTool({ name: 'browser_navigate', arguments: { url } }))];
    expect(answers[0]).toContain('- Page Title: The Rust Programming Language');
    // Its window.print() 100 ms after load would have stopped the page behind Chrome's print dialog (every call then
    // waited 90 s): the agent is told instead, and the page answers.
    await expect
      .poll(async () => answers.push(text(await client.callTool({ name: 'browser_snapshot', arguments: {} }))) && answers.join('\n'), { timeout: 10_000 })
      .toContain('The page in tab 0 called window.print(): nothing was printed');
    expect(answers.at(-1)).toContain('heading "The Rust Programming Language"');
    expect(text(await client.callTool({ name: 'browser_find', arguments: { text: 'references and borrowing' } }))).toMatch(/link "References and Borrowing"/i);
    expect(text(await client.callTool({ name: 'browser_get_text', arguments: { target: '#what-is-ownership + p' } }))).toContain(
      'Ownership is a set of rules that govern how a Rust program manages memory.',
    );
    await client.callTool({ name: 'browser_click', arguments: { target: 'a[href="#references-and-borrowing"]' } });
    expect(text(await client.callTool({ name: 'browser_evaluate', arguments: { function: '() => location.hash' } }))).toContain('"#references-and-borrowing"');
    expect(await rig.activeUrls()).toEqual([rig.personUrl]);
  } finally {
    await (client.transport as StreamableHTTPClientTransport).terminateSession().catch(() => undefined);
    await client.close();
  }
});

it('an action whose input never reached the page answers an error, never "Clicked"', async () => {
  const { server } = rig;
  const client = await connectClient(rig.gw, 'Blind agent');
  const url = server.url('/received.html?blind');
  try {
    await client.callTool({ name: 'browser_navigate', arguments: { url } });
    // Chrome's own treatment of a tab behind the person's, which the extension's focus emulation undoes: switched off
    // here for this tab (through the extension's own debugger attachment), a new document in it gets the pointer's
    // moves but not its presses, and no key presses.
    await rig.control.evaluate(async (u: string) => {
      type Debugger = { chrome: { debugger: { sendCommand(target: { tabId: number }, method: string, params: object): Promise<unknown> } } };
      const [tab] = await (globalThis as unknown as ChromeTabs).chrome.tabs.query({ url: u });
      await (globalThis as unknown as Debugger).chrome.debugger.sendCommand({ tabId: tab!.id }, 'Emulation.setFocusEmulationEnabled', { enabled: false });
    }, url);
    await client.callTool({ name: 'browser_navigate', arguments: { url: `${url}=again` } });
    const clicked = await client.callTool({ name: 'browser_click', arguments: { target: '#approve' } });
    expect(clicked.isError).toBe(true);
    expect(text(clicked)).toContain('The page received none of the input of this click: Chrome did not deliver it to the tab, so nothing happened');
    const typed = await client.callTool({ name: 'browser_type', arguments: { target: '#q', text: 'lamps', submit: true } });
    expect(typed.isError).toBe(true);
    expect(text(typed)).toContain('The page received none of the input of this Enter after typing');
    const log = await client.callTool({ name: 'browser_evaluate', arguments: { function: "() => document.querySelectorAll('#log li').length" } });
    expect(text(log)).toContain('### Result\n0');
  } finally {
    await (client.transport as StreamableHTTPClientTransport).terminateSession().catch(() => undefined);
    await client.close();
  }
});

it('the person pauses browsermcp in the popup: agents are told so, and carry on after Connect', async () => {
  const { server } = rig;
  const client = await connectClient(rig.gw, 'Paused agent');
  expect(text(await client.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html') } }))).toContain('Fixture home');
  const popup = await rig.openPopup();
  await popup.page.waitFor(() => document.getElementById('toggle')?.textContent === 'Disconnect');
  await rig.clickAsPerson(popup.page, `() => document.getElementById('toggle')`);
  await popup.page.waitFor(() => document.getElementById('toggle')?.textContent === 'Connect');
  await expect
    .poll(() => rig.logs.map((l) => String(l.msg)))
    .toContainEqual(expect.stringMatching(/^extension disconnected: "Chrome \d+"; its agents' sessions wait for it to come back \(grace period\)$/));
  await expect
    .poll(async () => text(await client.callTool({ name: 'browser_snapshot', arguments: {} })), { timeout: 10_000 })
    .toContain(
      "the person paused browsermcp in their browser (Disconnect in its popup, or Cancel on Chrome's debugging bar); ask them to press Connect in the browsermcp popup",
    );
  await rig.clickAsPerson(popup.page, `() => document.getElementById('toggle')`);
  await expect.poll(async () => text(await client.callTool({ name: 'browser_snapshot', arguments: {} })), { timeout: 20_000 }).toContain('button "Click me"');
  await popup.close();
  await (client.transport as StreamableHTTPClientTransport).terminateSession();
  await client.close();
});

it("Cancel on Chrome's debugging bar is the person's Stop: every agent here stops and hears why; none attaches again until the person presses Connect", async () => {
  const { server } = rig;
  const first = await connectClient(rig.gw, 'First agent');
  const second = await connectClient(rig.gw, 'Second agent');
  let later: Awaited<ReturnType<typeof connectClient>> | undefined;
  const popup = await rig.openPopup();
  try {
    expect(text(await first.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html') } }))).toContain('Fixture home');
    expect(text(await second.callTool({ name: 'browser_navigate', arguments: { url: server.url('/form.html?second') } }))).toContain('- Page URL');
    // The person looks at an agent's tab, where Chrome shows its bar, and presses Cancel.
    const agentTab = await rig.browser.tabWith(server.url('/index.html'));
    await rig.browser.activate(agentTab!.id);
    await rig.pressCancelOnDebuggingBar();
    const told = `the person stopped this agent in their browser (Cancel on Chrome's "started debugging this browser" bar; browsermcp stays paused there until they press Connect in its popup)`;
    await expect.poll(async () => text(await first.callTool({ name: 'browser_snapshot', arguments: {} })), { timeout: 10_000 }).toContain(told);
    expect(text(await second.callTool({ name: 'browser_click', arguments: { target: 'button' } }))).toContain(told);
    // Their tabs are closed; the gateway's log says who stopped them and how.
    await expect.poll(async () => (await rig.browser.tabs()).filter((t) => t.url.startsWith(server.url('/'))).map((t) => t.url)).toEqual([rig.personUrl]);
    expect(rig.logs.map((l) => l.msg)).toContain(
      "the person stopped this agent in their browser (Cancel on Chrome's debugging bar; browsermcp is paused in that browser)",
    );
    // Nothing attaches again: an agent that comes now is told to ask the person, and opens no tab.
    later = await connectClient(rig.gw, 'Later agent');
    const refused = await later.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html?later') } });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain(
      "The person paused browsermcp in their browser (Disconnect in its popup, or Cancel on Chrome's debugging bar). Ask them to press Connect",
    );
    expect(await rig.browser.tabWith(server.url('/index.html?later'))).toBeUndefined();
    // The popup says what happened; Connect lets agents in again.
    await popup.page.send('Page.reload');
    expect(await popup.page.waitFor<string>(() => !document.getElementById('error')!.hidden && document.getElementById('error')!.textContent)).toBe(
      "You pressed Cancel on Chrome's debugging bar: every agent here was stopped. Press Connect to let agents in again.",
    );
    await rig.clickAsPerson(popup.page, `() => document.getElementById('toggle')`);
    await expect
      .poll(async () => text(await later!.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html?later') } })), { timeout: 20_000 })
      .toContain('Fixture home');
  } finally {
    await popup.close();
    await rig.setStorage({ paused: false });
    for (const client of [first, second, later].filter((c) => c !== undefined)) {
      await (client.transport as StreamableHTTPClientTransport).terminateSession().catch(() => undefined);
      await client.close();
    }
  }
});

it('the popup says Connect, not Disconnect, while the extension cannot reach the gateway', async () => {
  const setUrl = (daemonUrl: string) => rig.setStorage({ daemonUrl });
  const popup = await rig.openPopup();
  try {
    await setUrl(`ws://127.0.0.1:${await freePort()}/extension`);
    await popup.page.waitFor(() => document.getElementById('state-text')?.textContent === 'Not connected');
    expect(await popup.page.evaluate(() => document.getElementById('toggle')?.textContent)).toBe('Connect');
  } finally {
    await setUrl((rig.gw.backend as ExtensionBackend).extensionUrl);
  }
  await popup.page.waitFor(() => document.getElementById('state-text')?.textContent === 'Connected');
  expect(await popup.page.evaluate(() => document.getElementById('toggle')?.textContent)).toBe('Disconnect');
  await popup.close();
});

/** The popup's row of the agent named `name`, evaluated in the popup: a function source for clickAsPerson. */
const agentButton = (name: string, button: string) =>
  `() => Array.from(document.querySelectorAll('li.agent')).find((li) => li.textContent?.includes(${JSON.stringify(name)}))?.querySelector(${JSON.stringify(button)})`;

it('pairing: an unpaired browser connects to nothing, a wrong code is refused with the reason, the gateway’s code pairs it, and a code the daemon refuses leaves the form to pair again (popup or options page)', async () => {
  const backend = rig.gw.backend as ExtensionBackend;
  const popup = await rig.openPopup();
  try {
    // As after install: no pairing code. The extension refuses the gateway's question, and the popup says how to pair.
    await rig.control.evaluate(() =>
      (globalThis as unknown as { chrome: { storage: { local: { remove(k: string): Promise<void> } } } }).chrome.storage.local.remove('pairingCode'),
    );
    await expect.poll(() => backend.browserConnected()).toBe(false);
    await popup.page.waitFor(
      () => !(document.getElementById('pair-form') as HTMLElement).hidden && document.getElementById('paired')?.textContent === '· not paired',
    );
    expect(await popup.page.evaluate(() => document.querySelector('#pair-form .hint')?.textContent?.replace(/\s+/g, ' '))).toBe(
      'Once per browser: paste the pairing code browsermcp printed when it started (it begins with bmcp-pair-1.), then press Pair.',
    );
    expect(
      await rig.control.evaluate(
        async () =>
          (
            await (
              globalThis as unknown as { chrome: { storage: { session: { get(k: string): Promise<{ connection?: { error?: string } }> } } } }
            ).chrome.storage.session.get('connection')
          ).connection?.error,
      ),
    ).toContain('This browser is not paired with browsermcp at ws://127.0.0.1:');
    // A code that is not one: refused in the popup, saying what to copy.
    await rig.clickAsPerson(popup.page, `() => document.getElementById('pair-code')`);
    await popup.page.send('Input.insertText', { text: 'bmcp-pair-1.oops' });
    await rig.clickAsPerson(popup.page, `() => document.querySelector('#pair-form button[type=submit]')`);
    expect(
      await popup.page.waitFor<string>(
        () => !(document.getElementById('pair-problem') as HTMLElement).hidden && document.getElementById('pair-problem')!.textContent,
      ),
    ).toBe(
      'This pairing code is cut short or has extra parts: copy the whole pairing code browsermcp printed when it started (one word beginning with bmcp-pair-1.)',
    );
    // The code the gateway printed: paired and connected.
    await popup.page.evaluate(() => (document.getElementById('pair-code') as HTMLInputElement).select());
    await popup.page.send('Input.insertText', { text: `  ${backend.pairingCode}\n` });
    await rig.clickAsPerson(popup.page, `() => document.querySelector('#pair-form button[type=submit]')`);
    await expect.poll(() => backend.browserConnected(), { timeout: 15_000 }).toBe(true);
    await popup.page.waitFor(
      () => document.getElementById('state-text')?.textContent === 'Connected' && document.getElementById('paired')?.textContent === '· paired',
    );
    expect(await popup.page.evaluate(() => (document.getElementById('pair-form') as HTMLElement).hidden)).toBe(true);
    // Settings read anew (the worker's alarm, a Connect press) hold a new copy of the same secret: no reconnect.
    const connects = () => rig.logs.filter((l) => /^extension connected/.test(String(l.msg))).length;
    const before = connects();
    await rig.control.evaluate(() =>
      (globalThis as unknown as { chrome: { runtime: { sendMessage(m: object): Promise<unknown> } } }).chrome.runtime.sendMessage({ type: 'connect' }),
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(connects()).toBe(before);
    // A well-formed code with another secret (an old start's, a mistyped one), pasted in the options page (which
    // always has the pairing form): not "paired"; the popup's form comes back, saying why.
    const options = rig.control;
    const wrong = formatPairingCode({ url: backend.extensionUrl, secret: newPairingSecret() });
    await rig.clickAsPerson(options, `() => document.getElementById('pair-code')`);
    await options.send('Input.insertText', { text: wrong });
    await rig.clickAsPerson(options, `() => document.querySelector('#pair-form button[type=submit]')`);
    await expect.poll(() => backend.browserConnected(), { timeout: 15_000 }).toBe(false);
    expect(
      await options.waitFor<string>(
        () => document.getElementById('pair-state')?.textContent === 'Not paired.' && document.getElementById('pair-problem')!.textContent,
      ),
    ).toContain('did not accept this pairing code: it was made for another start of browsermcp, or mistyped');
    expect(
      await popup.page.waitFor<string>(
        () =>
          document.getElementById('paired')?.textContent === '· not paired' &&
          !(document.getElementById('pair-form') as HTMLElement).hidden &&
          document.getElementById('pair-problem')!.textContent,
      ),
    ).toContain('Paste the code browsermcp printed when it last started');
    // Paired again from the popup.
    await popup.page.evaluate(() => (document.getElementById('pair-code') as HTMLInputElement).select());
    await popup.page.send('Input.insertText', { text: backend.pairingCode });
    await rig.clickAsPerson(popup.page, `() => document.querySelector('#pair-form button[type=submit]')`);
    await expect.poll(() => backend.browserConnected(), { timeout: 15_000 }).toBe(true);
    await popup.page.waitFor(() => document.getElementById('paired')?.textContent === '· paired');
    await options.waitFor(() => document.getElementById('pair-state')?.textContent === 'Paired and connected.');
    await rig.backToPersonTab();
  } finally {
    await rig.setStorage({ daemonUrl: backend.extensionUrl, pairingCode: backend.pairingCode, paused: false });
    await expect.poll(() => backend.browserConnected(), { timeout: 15_000 }).toBe(true);
    await popup.close();
  }
});

it('pairing: a program posing as the extension gets nothing, and one squatting on the daemon’s port gets no hello', async () => {
  const backend = rig.gw.backend as ExtensionBackend;
  // Posing as the extension (its Origin), on the gateway's own daemon: asked to prove the pairing, refused without it.
  const poser = new WebSocket(backend.extensionUrl, { origin: `chrome-extension://${EXTENSION_ID}` });
  const heard: Array<{ method?: string; id?: string; params?: { pairing?: { nonce?: string } } }> = [];
  poser.on('message', (data) => heard.push(JSON.parse(data.toString()) as (typeof heard)[number]));
  await new Promise((resolve) => poser.once('open', resolve));
  await expect.poll(() => heard.length).toBe(1);
  expect(heard[0]).toMatchObject({ method: 'authenticate', params: { pairing: { nonce: expect.any(String) } } });
  poser.send(JSON.stringify({ jsonrpc: '2.0', id: heard[0]!.id, result: { name: 'poser', accessToken: '' } }));
  const closed = await new Promise<number>((resolve) => poser.once('close', (code) => resolve(code)));
  expect(closed).toBe(4401);
  expect(heard).toHaveLength(1);
  // Squatting on a port the person's code names: it does not ask for the pairing, and hears no hello.
  const squatter = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  const received: string[] = [];
  squatter.on('connection', (socket) => {
    socket.send(JSON.stringify({ jsonrpc: '2.0', method: 'authenticated' }));
    socket.on('message', (data) => received.push(data.toString()));
  });
  await new Promise((resolve) => squatter.once('listening', resolve));
  const squatUrl = `ws://127.0.0.1:${(squatter.address() as { port: number }).port}/extension`;
  const popup = await rig.openPopup();
  try {
    await rig.setStorage({ daemonUrl: squatUrl, pairingCode: formatPairingCode({ url: squatUrl, secret: newPairingSecret() }) });
    expect(
      await popup.page.waitFor<string>(
        () => document.getElementById('error')?.textContent?.includes('did not ask this browser to pair') && document.getElementById('error')!.textContent,
      ),
    ).toContain(`The program at ${squatUrl} did not ask this browser to pair, so it is not the browsermcp you paired with.`);
    expect(received).toEqual([]);
  } finally {
    await rig.setStorage({ daemonUrl: backend.extensionUrl, pairingCode: backend.pairingCode, paused: false });
    await expect.poll(() => backend.browserConnected(), { timeout: 15_000 }).toBe(true);
    await popup.close();
    squatter.close();
  }
});

it('the popup lists each agent with its last action, shows its tab, and Stop ends it: its tabs close, its agent is told', async () => {
  const { server } = rig;
  const client = await connectClient(rig.gw, 'Agent to stop');
  const own = server.url('/index.html?agent=stop');
  await client.callTool({ name: 'browser_navigate', arguments: { url: own } });
  await client.callTool({ name: 'browser_click', arguments: { target: '#counter' } });
  const popup = await rig.openPopup();
  await popup.page.waitFor(() => Array.from(document.querySelectorAll('li.agent')).some((li) => li.textContent?.includes('Agent to stop')));
  const line = await popup.page.evaluate<string>(
    () =>
      Array.from(document.querySelectorAll('li.agent:has(strong)'))
        .map((r) => r.textContent ?? '')
        .find((t) => t.includes('Agent to stop')) ?? '',
  );
  expect(line).toMatch(/Agent to stop1 tab · clicked on 127\.0\.0\.1:\d+, \d+ s ago/);
  // Its activity, newest first, each action with its time, folded until the person opens it.
  await rig.clickAsPerson(popup.page, agentButton('Agent to stop', 'details.activity summary'));
  const activity = await popup.page.waitFor<string[]>(() => {
    const li = Array.from(document.querySelectorAll('li.agent')).find((l) => l.textContent?.includes('Agent to stop'));
    const details = li?.querySelector('details.activity') as HTMLDetailsElement | null;
    return details?.open ? Array.from(details.querySelectorAll('ol li'), (item) => item.textContent ?? '') : null;
  });
  expect(activity).toEqual([
    expect.stringMatching(/^\d{1,2}:\d{2}:\d{2}( [AP]M)? clicked on 127\.0\.0\.1:\d+$/),
    expect.stringMatching(/^\d{1,2}:\d{2}:\d{2}( [AP]M)? opened 127\.0\.0\.1:\d+$/),
  ]);
  // A click on the agent shows its tab to the person (their choice: agents never do this themselves).
  await rig.clickAsPerson(popup.page, agentButton('Agent to stop', '.agent-show'));
  await expect.poll(rig.activeUrls).toEqual([own]);
  await rig.browser.activate((await rig.browser.tabWith(`chrome-extension://${EXTENSION_ID}/popup.html`))!.id);
  await rig.clickAsPerson(popup.page, agentButton('Agent to stop', '.agent-stop'));
  await expect.poll(async () => (await rig.browser.tabWith(own)) !== undefined).toBe(false);
  const after = await client.callTool({ name: 'browser_snapshot', arguments: {} });
  expect(after.isError).toBe(true);
  expect(text(after)).toContain('the person stopped this agent in their browser (the Stop button in the browsermcp popup)');
  // The gateway's log says so too, as it said when the extension connected (under its id: its key's hash).
  expect(rig.logs.map((l) => l.msg)).toContain('the person stopped this agent in their browser (Stop in the browsermcp popup)');
  expect(rig.logs.find((l) => /^extension connected: "Chrome \d+"$/.test(String(l.msg)))).toMatchObject({
    browser: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
  });
  await popup.close();
  await client.close();
});

it('sites the person put off limits in the options page: refused to agents; a page that goes there shows the person which entry kept it out', async () => {
  const { server } = rig;
  const tab = await rig.browser.open(`chrome-extension://${EXTENSION_ID}/options.html`);
  const options = await rig.browser.page(tab.id);
  try {
    // The page the person acts on is in front: a scenario before may have handed the focus back to another tab a moment
    // after it ended, and Chrome gives a tab behind others no clicks.
    const inFront = async () => {
      await rig.browser.activate(tab.id);
      await options.waitFor(() => document.visibilityState === 'visible');
    };
    // As the person does it: once the list shows, type the sites, press Save sites. An entry that is not a site is
    // refused with the reason, and nothing is saved until it is fixed.
    await options.waitFor(() => !(document.getElementById('off-limits') as HTMLTextAreaElement).disabled);
    await inFront();
    await rig.clickAsPerson(options, `() => document.getElementById('off-limits')`);
    await options.send('Input.insertText', { text: 'not a site!\n*.localhost' });
    // Save only once the words are in the list, as the person sees them there before pressing it.
    await options.waitFor(() => (document.getElementById('off-limits') as HTMLTextAreaElement).value === 'not a site!\n*.localhost');
    await inFront();
    await rig.clickAsPerson(options, `() => document.querySelector('#limits-form button[type=submit]')`);
    expect(
      await options.waitFor<string>(
        () => !(document.getElementById('limits-problem') as HTMLElement).hidden && document.getElementById('limits-problem')!.textContent,
      ),
    ).toBe('"not a site!" is not a site: write a host name such as mybank.com (its subdomains are included) or an IP address, one per line.');
    const stored = () =>
      rig.control.evaluate(
        async () =>
          (
            await (globalThis as unknown as { chrome: { storage: { local: { get(k: string): Promise<Record<string, unknown>> } } } }).chrome.storage.local.get(
              'offLimits',
            )
          ).offLimits ?? '',
      );
    expect(await stored()).toBe('');
    await options.evaluate(() => {
      (document.getElementById('off-limits') as HTMLTextAreaElement).select();
    });
    await options.send('Input.insertText', { text: '*.localhost' });
    await options.waitFor(() => (document.getElementById('off-limits') as HTMLTextAreaElement).value === '*.localhost');
    await inFront();
    await rig.clickAsPerson(options, `() => document.querySelector('#limits-form button[type=submit]')`);
    await options.waitFor(() => !(document.getElementById('limits-saved') as HTMLElement).hidden);
    expect(
      await options.evaluate(() => [
        (document.getElementById('off-limits') as HTMLTextAreaElement).value,
        (document.getElementById('limits-problem') as HTMLElement).hidden,
      ]),
    ).toEqual(['localhost', true]);
    expect(await stored()).toBe('localhost');
    await rig.backToPersonTab();
    const client = await connectClient(rig.gw, 'Curious agent');
    try {
      const refused = await client.callTool({ name: 'browser_navigate', arguments: { url: server.crossUrl('/form.html') } });
      expect(refused.isError).toBe(true);
      expect(text(refused)).toContain('The person has put localhost off limits for agents (browsermcp options page)');
      // However the host is spelled.
      const dotted = server.crossUrl('/form.html').replace('localhost:', 'localhost.:');
      const alsoRefused = await client.callTool({ name: 'browser_navigate', arguments: { url: dotted } });
      expect(alsoRefused.isError).toBe(true);
      expect(text(alsoRefused)).toContain('The person has put localhost off limits for agents');
      await client.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html') } });
      // A link there: the click's answer says why, and describes the page the tab shows then, the one the person sees
      // (not Chrome's error page that comes before it).
      const link = server.crossUrl('/form.html?via=link');
      await client.callTool({
        name: 'browser_evaluate',
        arguments: {
          function: `() => { document.body.insertAdjacentHTML('afterbegin', '<a id="offlink" href=${JSON.stringify(link)}>Off to the form</a>'); }`,
        },
      });
      const clicked = text(await client.callTool({ name: 'browser_click', arguments: { target: '#offlink' } }));
      expect(clicked).toContain(`The page's request for ${link} was refused: The person has put localhost off limits`);
      expect(clicked).toContain('- Page Title: Blocked by browsermcp');
      expect(clicked).toContain(`tried to open \`${server.crossUrl('/form.html')}\`.`);
      expect(clicked).not.toContain('chrome-error://');
      const redirected = await client.callTool({
        name: 'browser_navigate',
        arguments: { url: server.url(`/redirect?to=${encodeURIComponent(server.crossUrl('/form.html?via=redirect'))}`) },
      });
      // Reached by a redirect: the navigation says where it was stopped, and the tab shows the person why (not Chrome's
      // error page).
      expect(redirected.isError).toBe(true);
      expect(text(redirected)).toContain(`was stopped at ${server.crossUrl('/form.html?via=redirect')}: The person has put localhost off limits`);
      expect((await rig.browser.tabs()).map((t) => t.title)).toContain('Blocked by browsermcp');
      await client.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html') } });
      // The page itself heads there: the agent never sees it, and hears why; the tab shows the person which entry of
      // their list kept it out (not a blank page).
      await client.callTool({
        name: 'browser_evaluate',
        arguments: { function: `() => { location.href = ${JSON.stringify(server.crossUrl('/form.html?q=1'))}; }` },
      });
      const notes: string[] = [];
      await expect
        .poll(async () => notes.push(text(await client.callTool({ name: 'browser_snapshot', arguments: {} }))) && notes.at(-1), { timeout: 10_000 })
        .toContain('- Page Title: Blocked by browsermcp');
      expect(notes.join('\n')).toContain(`The page's request for ${server.crossUrl('/form.html?q=1')} was refused: The person has put localhost off limits`);
      expect(await rig.browser.tabWith(server.crossUrl('/form.html?q=1'))).toBeUndefined();
      // The blocked page is an empty document with no origin that the extension wrote into, not one of its pages: the
      // agent that acts in that tab next has no extension privileges there.
      await expect.poll(async () => (await rig.browser.tabs()).some((t) => t.title === 'Blocked by browsermcp')).toBe(true);
      const blocked = (await rig.browser.tabs()).find((t) => t.title === 'Blocked by browsermcp');
      expect(blocked, 'the agent tab shows the blocked page').toBeDefined();
      const shown = await rig.browser.page(blocked!.id);
      expect(
        await shown.waitFor<string>(() => document.querySelector('strong')?.textContent === 'localhost' && document.querySelector('main')!.textContent),
      ).toMatch(
        new RegExp(
          `tried to open ${server.crossUrl('/form.html').replace(/[.?]/g, '\\$&')}\\.\\s*You put localhost on the list of sites agents may never open`,
        ),
      );
      await shown.close();
      expect(await rig.activeUrls()).not.toContain(blocked!.url);
      // The agent reads it too, and reaches nothing of the extension from it.
      const onBlocked = await client.callTool({
        name: 'browser_evaluate',
        arguments: { function: '() => [document.title, typeof chrome === "undefined" || chrome.storage === undefined, origin]' },
      });
      expect(text(onBlocked)).toMatch(/\[\s*"Blocked by browsermcp",\s*true,\s*"null"\s*\]/);
      // The agent goes on from there, in the same tab; nor does any request of its pages reach the site (the same
      // guard as the gateway's origin lists).
      expect(await client.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html') } }).then(text)).toContain(
        '- Page Title: Fixture home',
      );
      const fetched = await client.callTool({
        name: 'browser_evaluate',
        arguments: {
          function: `() => fetch(${JSON.stringify(server.crossUrl('/item/from-agent-page'))}, { mode: 'no-cors' }).then(() => 'reached', () => 'refused')`,
        },
      });
      expect(text(fetched)).toContain('"refused"');
      expect(text(fetched)).toContain(
        `The page's request for ${server.crossUrl('/item/from-agent-page')} was refused: The person has put localhost off limits`,
      );
      expect(server.visits).not.toContain(`${new URL(server.crossOrigin).host}/item/from-agent-page`);
    } finally {
      await rig.setStorage({ offLimits: '' });
      await (client.transport as StreamableHTTPClientTransport).terminateSession().catch(() => undefined);
      await client.close();
    }
  } finally {
    // However the scenario ends, the options tab goes: the next one counts the extension's pages.
    await options.close();
    await rig.browser.close(tab.id).catch(() => undefined);
    await rig.backToPersonTab();
  }
});

it("no agent acts in an extension's page: not by URL, not by link, and not when its tab ends up on one; nothing of the extension's storage reaches it", async () => {
  const { server } = rig;
  const options = `chrome-extension://${EXTENSION_ID}/options.html`;
  const client = await connectClient(rig.gw, 'Prying agent');
  type Chrome = {
    chrome: {
      debugger: { getTargets(): Promise<Array<{ tabId?: number; attached: boolean }>> };
      tabs: {
        query(q: object): Promise<Array<{ id: number; url?: string }>>;
        update(id: number, p: object): Promise<unknown>;
        get(id: number): Promise<{ url?: string }>;
      };
    };
  };
  /** Whether a debugger (the extension's, for the agent) is attached to the tab. */
  const attached = async (tabId: number) =>
    (await rig.control.evaluate<Array<{ tabId?: number; attached: boolean }>>(() => (globalThis as unknown as Chrome).chrome.debugger.getTargets())).find(
      (t) => t.tabId === tabId,
    )?.attached;
  const urlOf = (tabId: number) =>
    rig.control.evaluate<string | undefined>(async (id: number) => (await (globalThis as unknown as Chrome).chrome.tabs.get(id)).url, tabId);
  try {
    await client.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html?agent=prying') } });
    const agentTab = await rig.control.evaluate<number>(
      async (url: string) => (await (globalThis as unknown as Chrome).chrome.tabs.query({})).find((t) => t.url === url)!.id,
      server.url('/index.html?agent=prying'),
    );
    // By URL: refused, in a new tab too.
    for (const [name, args] of [
      ['browser_navigate', { url: options }],
      ['browser_tabs', { action: 'new', url: `chrome-extension://${EXTENSION_ID}/popup.html` }],
    ] as const) {
      const refused = await client.callTool({ name, arguments: args });
      expect(refused.isError, name).toBe(true);
      expect(text(refused), name).toContain('URLs with the "chrome-extension:" scheme are not allowed');
    }
    // By link: a page's link to the extension's settings goes nowhere, and nothing comes in front of the person.
    await client.callTool({
      name: 'browser_evaluate',
      arguments: {
        function: `() => { const a = document.createElement('a'); a.id = 'to-settings'; a.href = ${JSON.stringify(options)}; a.textContent = 'browsermcp settings'; document.body.prepend(a); }`,
      },
    });
    await client.callTool({ name: 'browser_click', arguments: { target: '#to-settings' } });
    const shown = await rig.browser.tabs();
    expect(shown.filter((t) => t.url.startsWith(options)).map((t) => t.id)).toEqual([(await rig.browser.tabWith(options))!.id]);
    expect(await rig.activeUrls()).toContain(rig.personUrl);
    // However its tab gets there (here the extension itself sends it, as anything else might): the debugger lets go,
    // and every tool refuses there with the reason, before any of the agent's script could run.
    // (Back on the web first, out of the error page the link left: the answer says it is there.)
    expect(text(await client.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html?agent=prying') } }))).toContain(
      '- Page Title: Fixture home',
    );
    await rig.control.evaluate((id: number, url: string) => (globalThis as unknown as Chrome).chrome.tabs.update(id, { url }), agentTab, options);
    // A navigation, waited for as one (expect.poll's 1 s default is shorter than one on a loaded machine).
    await expect.poll(() => urlOf(agentTab), { timeout: 10_000 }).toBe(options);
    for (const [name, args] of [
      ['browser_evaluate', { function: '() => chrome.storage.local.get(null)' }],
      ['browser_snapshot', {}],
      ['browser_take_screenshot', {}],
      ['browser_click', { target: 'body' }],
    ] as const) {
      const refused = await client.callTool({ name, arguments: args });
      expect(refused.isError, name).toBe(true);
      expect(text(refused), name).toContain(`browsermcp does not let agents act in ${options}: it is a browser extension's own page`);
      expect(text(refused), name).not.toContain('pairing');
    }
    expect(await attached(agentTab)).toBe(false);
    expect(await rig.activeUrls()).toContain(rig.personUrl);
    // browser_navigate takes it back to the web, and the agent goes on.
    expect(text(await client.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html') } }))).toContain('- Page Title: Fixture home');
    expect(await attached(agentTab)).toBe(true);
    // An empty page is one with no origin, never the extension's: from there no frame or window reaches its storage.
    await client.callTool({ name: 'browser_navigate', arguments: { url: 'about:blank' } });
    const blank = await client.callTool({
      name: 'browser_evaluate',
      arguments: {
        function: `async () => { const f = document.createElement('iframe'); f.src = ${JSON.stringify(options)}; document.body.append(f); await new Promise((r) => setTimeout(r, 500)); let reached; try { reached = typeof f.contentWindow.chrome.storage; } catch (e) { reached = 'no: ' + e.name; } return [location.href, origin, reached]; }`,
      },
    });
    expect(text(blank)).toMatch(/\[\s*"about:blank",\s*"null",\s*"no: SecurityError"\s*\]/);
  } finally {
    await rig.backToPersonTab();
    await (client.transport as StreamableHTTPClientTransport).terminateSession().catch(() => undefined);
    await client.close();
  }
});

it('the person shares one of their tabs with an agent from the popup: it joins the agent’s tabs and the agent is told', async () => {
  const { server } = rig;
  const client = await connectClient(rig.gw, 'Helper agent');
  // A client that only listed the tools: it never acted, and is not offered the person's tab.
  const onlyLooked = await connectClient(rig.gw, 'Tool lister');
  await onlyLooked.listTools();
  const mine = await rig.browser.open(server.url('/links.html'));
  try {
    await client.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html?agent=helper') } });
    await rig.browser.activate(mine.id);
    const popup = await rig.openPopup();
    await popup.page.waitFor(() => !(document.getElementById('share') as HTMLElement).hidden);
    // Nobody is chosen for the person: the placeholder shows, Share waits for a choice; only the agent that acted is offered.
    expect(
      await popup.page.evaluate(() => {
        const select = document.getElementById('share-agent') as HTMLSelectElement;
        return [select.value, Array.from(select.options, (o) => o.textContent), (document.getElementById('share-button') as HTMLButtonElement).disabled];
      }),
    ).toEqual(['', ['Choose an agent…', 'Helper agent'], true]);
    expect(await popup.page.evaluate(() => document.getElementById('share-title')?.getAttribute('title'))).toBe(server.url('/links.html'));
    await popup.page.evaluate(() => {
      const select = document.getElementById('share-agent') as HTMLSelectElement;
      select.value = Array.from(select.options).find((o) => o.textContent === 'Helper agent')!.value;
      select.dispatchEvent(new Event('change', { bubbles: true }));
    });
    await rig.clickAsPerson(popup.page, `() => document.getElementById('share-button')`);
    // Shared: the popup renders the answer, and that tab is no longer one to share (the person's other tab may be).
    await popup.page.waitFor(
      (shared: string) => (document.getElementById('share') as HTMLElement).hidden || document.getElementById('share-title')?.getAttribute('title') !== shared,
      [server.url('/links.html')],
    );
    await popup.close();
    const tabs = text(await client.callTool({ name: 'browser_tabs', arguments: { action: 'list' } }));
    expect(tabs).toContain(`The person shared a tab with you: Links (${server.url('/links.html')})`);
    expect(tabs).toMatch(/- 0: \(current\) \[Fixture home\]/);
    expect(tabs).toMatch(/- 1: \[Links\]/);
    expect(text(await client.callTool({ name: 'browser_tabs', arguments: { action: 'select', index: 1 } }))).toContain('- Page Title: Links');

    // Stop closes what the agent opened and gives the person's tab back to them: open, out of the agent's group.
    const again = await rig.openPopup();
    await again.page.waitFor(() => Array.from(document.querySelectorAll('li.agent')).some((li) => li.textContent?.includes('Helper agent')));
    const row = await again.page.evaluate<{ line: string; stop: string }>(() => {
      const li = Array.from(document.querySelectorAll('li.agent')).find((l) => l.textContent?.includes('Helper agent'))!;
      return { line: li.querySelector('.agent-detail')?.textContent ?? '', stop: li.querySelector('.agent-stop')?.getAttribute('title') ?? '' };
    });
    expect(row.line).toContain('2 tabs (1 yours, shared: Stop gives it back)');
    expect(row.stop).toBe('End this agent’s session: closes the tab it opened; the tab you shared goes back to you, open');
    await rig.clickAsPerson(again.page, agentButton('Helper agent', '.agent-stop'));
    await expect.poll(async () => (await rig.browser.tabWith(server.url('/index.html?agent=helper'))) !== undefined).toBe(false);
    await again.close();
    const shared = await rig.control.evaluate<Array<{ groupId?: number }>>(
      (u: string) => (globalThis as unknown as ChromeTabs).chrome.tabs.query({ url: u }),
      server.url('/links.html'),
    );
    expect(shared.map((t) => t.groupId)).toEqual([-1]);
  } finally {
    await rig.backToPersonTab();
    await (client.transport as StreamableHTTPClientTransport).terminateSession().catch(() => undefined);
    await client.close();
    await (onlyLooked.transport as StreamableHTTPClientTransport).terminateSession().catch(() => undefined);
    await onlyLooked.close();
    await rig.browser.close(mine.id).catch(() => undefined);
  }
});

describe('a new agent must be allowed by the person', () => {
  const setAsk = (ask: boolean) => rig.setStorage({ askBeforeNewAgents: ask, allowedAgents: [] });

  /** Presses one of a pending agent's buttons in the popup, as the person would. */
  async function answer(agent: string, button: 'once' | 'always' | 'deny'): Promise<void> {
    const popup = await rig.openPopup();
    await popup.page.waitFor(
      (name: string) =>
        Array.from(document.querySelectorAll('li.agent.pending')).some(
          (li) => li.textContent?.includes(name) && li.textContent.includes('wants to use this browser'),
        ),
      [agent],
    );
    await rig.clickAsPerson(popup.page, agentButton(agent, `.decide-${button}`));
    await popup.page.waitFor(
      (name: string) => !Array.from(document.querySelectorAll('li.agent.pending')).some((li) => li.textContent?.includes(name)),
      [agent],
    );
    await popup.close();
  }

  it('holds its first call (with progress saying why) until Allow; Deny refuses it; Always allow is remembered', async () => {
    const { server } = rig;
    await setAsk(true);
    try {
      // Allow once: the waiting call goes on, with progress notifications that say what it waits for.
      const first = await connectClient(rig.gw, 'Newcomer');
      const progress: string[] = [];
      const call = first.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html?agent=new') } }, undefined, {
        onprogress: (p) => progress.push(p.message ?? ''),
        timeout: 60_000,
      });
      // The client hears, every --progress-interval (2 s here), that the call waits for the person, and what for.
      await expect.poll(() => progress.length, { timeout: 15_000, interval: 200 }).toBeGreaterThan(0);
      expect(progress[0]).toMatch(/^browser_navigate is still running \(\d+ s\): Waiting for the person to allow "Newcomer" in the browsermcp popup/);
      // The person sees it without pinning the extension (a system notification), and in the popup: who it is by the
      // key its gateway checked, and what its call wants. The badge counts it.
      const notifications = await rig.control.evaluate<Record<string, boolean>>(() =>
        (globalThis as unknown as { chrome: { notifications: { getAll(): Promise<Record<string, boolean>> } } }).chrome.notifications.getAll(),
      );
      expect(Object.keys(notifications)).toEqual([expect.stringMatching(/^approve:/)]);
      expect(
        await rig.control.evaluate(() =>
          (globalThis as unknown as { chrome: { action: { getBadgeText(d: object): Promise<string> } } }).chrome.action.getBadgeText({}),
        ),
      ).toBe('1');
      const popup = await rig.openPopup();
      const row = await popup.page.waitFor<string>(() =>
        Array.from(document.querySelectorAll('li.agent.pending'))
          .map((li) => li.textContent ?? '')
          .find((t) => t.includes('Newcomer')),
      );
      expect(row).toMatch(/^NewcomerAPI key [0-9a-f]{8}wants to use this browser: open http:\/\/127\.0\.0\.1:\d+\/index\.html\?agent=new/);
      await popup.close();
      await answer('Newcomer', 'once');
      expect(text(await call)).toContain('- Page Title: Fixture home');
      await (first.transport as StreamableHTTPClientTransport).terminateSession();

      // Deny: the call answers at once that the person said no, and so does the next.
      const denied = await connectClient(rig.gw, 'Pushy agent');
      const refused = denied.callTool({ name: 'browser_snapshot', arguments: {} });
      await answer('Pushy agent', 'deny');
      expect(text(await refused)).toContain('The person denied "Pushy agent" the use of their browser');
      expect(text(await denied.callTool({ name: 'browser_snapshot', arguments: {} }))).toContain('The person denied');
      await (denied.transport as StreamableHTTPClientTransport).terminateSession();

      // Always allow: the next session of that agent is not asked again.
      const trusted = await connectClient(rig.gw, 'Trusted agent');
      const waiting = trusted.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html?agent=trusted') } });
      await answer('Trusted agent', 'always');
      expect(text(await waiting)).toContain('Fixture home');
      await (trusted.transport as StreamableHTTPClientTransport).terminateSession();
      const again = await connectClient(rig.gw, 'Trusted agent');
      expect(text(await again.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html?agent=trusted2') } }))).toContain('Fixture home');
      await (again.transport as StreamableHTTPClientTransport).terminateSession();
      // A client with another key that calls itself by the same name is asked: Always allow bound the key, not the name.
      expect(rig.gw.apiKey).toBe(PERSON_RIG_KEYS[0]);
      const lookalike = await connectClient(rig.gw, 'Trusted agent', { key: PERSON_RIG_KEYS[1] });
      const asked = lookalike.callTool({ name: 'browser_snapshot', arguments: {} });
      await answer('Trusted agent', 'deny');
      expect(text(await asked)).toContain('The person denied "Trusted agent" the use of their browser');
      await (lookalike.transport as StreamableHTTPClientTransport).terminateSession();

      // The options page lists the agent always allowed, by name and key; Revoke takes it back.
      const tab = await rig.browser.open(`chrome-extension://${EXTENSION_ID}/options.html`);
      const options = await rig.browser.page(tab.id);
      try {
        expect(await options.waitFor<string>(() => document.querySelector('li.allowed-agent')?.textContent)).toMatch(
          /^Trusted agent — API key [0-9a-f]{8}, since .+Revoke$/,
        );
        await rig.clickAsPerson(options, `() => document.querySelector('li.allowed-agent .revoke')`);
        await options.waitFor(
          () => document.querySelectorAll('li.allowed-agent').length === 0 && !(document.getElementById('always-none') as HTMLElement).hidden,
        );
      } finally {
        await options.close();
        await rig.browser.close(tab.id);
        await rig.backToPersonTab();
      }
      const revoked = await connectClient(rig.gw, 'Trusted agent');
      const askedAgain = revoked.callTool({ name: 'browser_snapshot', arguments: {} });
      await answer('Trusted agent', 'once');
      expect((await askedAgain).isError).toBeFalsy();
      await (revoked.transport as StreamableHTTPClientTransport).terminateSession();
    } finally {
      await setAsk(false);
    }
  });

  it('two agents waiting, one with a long name: the popup reads well at its real size, each name and wish on whole lines', async () => {
    const { server } = rig;
    await setAsk(true);
    const long = 'Quarterly expense report reconciliation assistant';
    const clients = [await connectClient(rig.gw, 'Travel booker'), await connectClient(rig.gw, long, { key: PERSON_RIG_KEYS[1] })];
    const calls = clients.map((c, i) =>
      c.callTool(
        { name: 'browser_navigate', arguments: { url: server.url(`/index.html?waiting=${i}&a-long-query-string-that-runs-on=1234567890`) } },
        undefined,
        { timeout: 60_000 },
      ),
    );
    const popup = await rig.openPopup();
    try {
      await popup.page.waitFor(() => document.querySelectorAll('li.agent.pending').length === 2);
      expect(await popup.page.evaluate(READABILITY_PROBLEMS)).toEqual([]);
      // Who each one is: the fingerprint of the key its gateway checked, the same the gateway's banner prints, and
      // the label the key has in --api-key-file.
      const identities = await popup.page.evaluate<string[]>(() =>
        Array.from(document.querySelectorAll('li.agent.pending .agent-identity'), (el) => el.textContent ?? ''),
      );
      expect(identities).toEqual([keyFingerprint(PERSON_RIG_KEYS[0]), `${keyFingerprint(PERSON_RIG_KEYS[1])} (${PERSON_RIG_KEY_LABEL})`]);
      // Each one's buttons under its words, the whole row for the name.
      const rows = await popup.page.evaluate<Array<{ name: number; buttons: number; nameBottom: number; buttonsTop: number }>>(() =>
        Array.from(document.querySelectorAll('li.agent.pending')).map((li) => {
          const name = li.querySelector('strong')!.getBoundingClientRect();
          const buttons = li.querySelector('.decide')!.getBoundingClientRect();
          return {
            name: name.width,
            buttons: buttons.width,
            nameBottom: li.querySelector('.agent-show')!.getBoundingClientRect().bottom,
            buttonsTop: buttons.top,
          };
        }),
      );
      for (const row of rows) expect(row.buttonsTop).toBeGreaterThanOrEqual(row.nameBottom);
      expect(Math.max(...rows.map((r) => r.name))).toBeGreaterThan(200);
    } finally {
      await popup.close();
      await answer('Travel booker', 'deny');
      await answer(long, 'deny');
      await Promise.allSettled(calls);
      for (const c of clients) {
        await (c.transport as StreamableHTTPClientTransport).terminateSession().catch(() => undefined);
        await c.close();
      }
      await setAsk(false);
    }
  });

  it("keeps the person's click when the popup renders anew between press and release (an agent at work changes it)", async () => {
    const { server } = rig;
    const busy = await connectClient(rig.gw, 'Busy agent');
    await busy.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html') } });
    await setAsk(true);
    const newcomer = await connectClient(rig.gw, 'Held newcomer', { key: PERSON_RIG_KEYS[1] });
    const waiting = newcomer.callTool({ name: 'browser_snapshot', arguments: {} }, undefined, { timeout: 60_000 });
    const popup = await rig.openPopup();
    try {
      const box = await popup.page.waitFor<{ x: number; y: number }>(() => {
        const button = Array.from(document.querySelectorAll('li.agent.pending'))
          .find((li) => li.textContent?.includes('Held newcomer'))
          ?.querySelector('.decide-deny');
        if (!button) return null;
        const r = button.getBoundingClientRect();
        return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
      });
      await popup.page.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x: box.x, y: box.y });
      await popup.page.send('Input.dispatchMouseEvent', { type: 'mousePressed', x: box.x, y: box.y, button: 'left', clickCount: 1 });
      // While the button is held, another agent works: the popup hears of it and would draw its rows again.
      await busy.callTool({ name: 'browser_click', arguments: { target: '#counter' } });
      await busy.callTool({ name: 'browser_navigate', arguments: { url: server.url('/form.html') } });
      await new Promise((r) => setTimeout(r, 300));
      await popup.page.send('Input.dispatchMouseEvent', { type: 'mouseReleased', x: box.x, y: box.y, button: 'left', clickCount: 1 });
      expect(text(await waiting)).toContain('The person denied "Held newcomer" the use of their browser');
    } finally {
      await popup.close();
      await setAsk(false);
      for (const c of [busy, newcomer]) {
        await (c.transport as StreamableHTTPClientTransport).terminateSession().catch(() => undefined);
        await c.close();
      }
    }
  });

  it('asks for a 2026-07-28 agent too: its stateless request waits (with progress) for Allow, which holds for its next requests; Deny refuses', async () => {
    const { server } = rig;
    await setAsk(true);
    try {
      const modern = await modernClient(rig.gw.url, PERSON_RIG_KEYS[0], 'Stateless newcomer');
      const progress: string[] = [];
      const call = modern.callTool(
        { name: 'browser_navigate', arguments: { url: server.url('/index.html?agent=modern') } },
        { onprogress: (p) => void progress.push(p.message ?? ''), timeout: 60_000 },
      );
      await expect.poll(() => progress.length, { timeout: 15_000, interval: 200 }).toBeGreaterThan(0);
      expect(progress[0]).toMatch(/^browser_navigate is still running \(\d+ s\): Waiting for the person to allow "Stateless newcomer" in the browsermcp popup/);
      await answer('Stateless newcomer', 'once');
      expect(text(await call)).toContain('- Page Title: Fixture home');
      // The next request (a new HTTP request, no session) lands in the same allowed state: not asked again.
      expect(text(await modern.callTool({ name: 'browser_snapshot', arguments: {} }))).toContain('Fixture home');
      expect(
        await rig.control.evaluate(() =>
          (globalThis as unknown as { chrome: { action: { getBadgeText(d: object): Promise<string> } } }).chrome.action.getBadgeText({}),
        ),
      ).toBe('');
      await modern.close();

      // Another key's stateless agent, denied: its request answers that the person said no.
      const pushy = await modernClient(rig.gw.url, PERSON_RIG_KEYS[1], 'Stateless pushy');
      const refused = pushy.callTool({ name: 'browser_snapshot', arguments: {} });
      await answer('Stateless pushy', 'deny');
      expect(text(await refused)).toContain('The person denied "Stateless pushy" the use of their browser');
      await pushy.close();
    } finally {
      await setAsk(false);
    }
  });
});
