// The real-app task suite: what an agent is asked to do on each page, done the way a scripted agent does it (it reads
// only the answers' text, finds an element by role and visible name, takes its ref, acts), and judged by the page's
// own state afterwards. One list for every runner: the gateway's scenarios (launched and through the extension) and
// the benchmark against @playwright/mcp, whose tools take the same names and arguments.

/** A tool answered with an error: the task fails there, and it is not a false success. */
export class ToolRefused extends Error {}
/** The agent could not find what it looked for in what it was shown: the page hid it from the agent. */
export class NotShown extends Error {}

/** The text from the first snapshot-looking block of an answer on, or undefined when the answer carries none. */
function snapshotIn(text) {
  const at = text.indexOf('```yaml');
  return at < 0 ? undefined : text.slice(at);
}

/**
 * The ref of the first line for `role` that reads `text`: in its quoted name (`exact`), or anywhere on the line or in
 * the lines nested under it. `null` when none does.
 */
export function findRef(snapshot, role, text, exact = false) {
  // browser_find's lines end with where the match sits, "(in: table [ref=e22])": not the match's own ref.
  const lines = snapshot.split('\n').map((line) => line.replace(/\s+\(in: .*\)$/, ''));
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const m = new RegExp(`^(\\s*)- ${role}\\b(?: "([^"]*)")?.*?\\[ref=([^\\]]+)\\]`).exec(line);
    if (!m) continue;
    if (exact) {
      if (m[2] === text) return m[3];
      continue;
    }
    let block = line;
    for (let j = i + 1; j < lines.length && /^(\s*)/.exec(lines[j])[1].length > m[1].length; j++) block += `\n${lines[j]}`;
    if (block.includes(text)) return m[3];
  }
  if (!exact) return null;
  // Not under that role: what the page shows by that exact name under another (an option drawn as a div with a
  // pointer cursor), as an agent reading the page would take it.
  for (const line of lines) {
    const m = /^\s*- \S+(?: "([^"]*)")?.*?\[ref=([^\]]+)\](?:: (.*))?$/.exec(line);
    if (m && (m[1] === text || m[3] === text)) return m[2];
  }
  return null;
}

/**
 * A scripted agent over one MCP session: `call(name, args)` runs a tool and gives its text and whether it is an error.
 * It counts what it reads, and asks for a snapshot only when the last answer did not show the page.
 */
export class ScriptedAgent {
  constructor(call) {
    this.call = call;
    /** Characters of every answer the agent read (the check at the end is not the agent's). */
    this.chars = 0;
    this.calls = 0;
    this.seen = '';
    /** The page as shown before the last whole snapshot, which an answer's changes may start from. */
    this.before = undefined;
    this.fresh = false;
  }

  async tool(name, args) {
    const { text, isError } = await this.call(name, args);
    this.calls++;
    this.chars += text.length;
    const shown = snapshotIn(text);
    if (text.includes('### Snapshot changes') && shown) {
      // Only what changed since the page was last shown (or, where it says so, since the page shown before that):
      // read first, with what the agent already saw below it.
      const base = text.includes('since the snapshot before the last one') ? (this.before ?? '') : this.seen;
      this.seen = `${shown}\n${base}`;
      this.before = undefined;
      this.fresh = true;
    } else if (shown) {
      this.before = this.seen;
      this.seen = shown;
      this.fresh = true;
    } else {
      // "Unchanged since the last snapshot": what the agent saw still holds.
      this.fresh = text.includes('Unchanged since the last snapshot');
    }
    if (isError) throw new ToolRefused(`${name} answered an error: ${text.slice(0, 400)}`);
    return text;
  }

  async open(url, ready) {
    await this.tool('browser_navigate', { url });
    await this.tool('browser_wait_for', { text: ready });
  }

  /** The ref of what the agent looks for, from the page as it was last shown (a new snapshot when it is not). */
  async ref(role, text, exact = false) {
    if (!this.fresh) await this.tool('browser_snapshot', {});
    let ref = findRef(this.seen, role, text, exact);
    if (!ref) {
      // What it wants may have just appeared (a menu opening): one more look, as an agent would.
      await this.tool('browser_snapshot', {});
      ref = findRef(this.seen, role, text, exact);
    }
    if (!ref && this.seen.includes('Snapshot cut at')) {
      // A page bigger than the server shows at once: search it, as the cut snapshot's note says to.
      ref = findRef(await this.tool('browser_find', { text }), role, text, exact);
    }
    if (!ref) throw new NotShown(`no ${role} ${exact ? `named "${text}"` : `reading "${text}"`} with a ref in the snapshot`);
    return ref;
  }

  async click(role, text, exact = false) {
    await this.tool('browser_click', { target: await this.ref(role, text, exact), element: `${role} ${text}` });
  }

  async hover(role, text, exact = false) {
    await this.tool('browser_hover', { target: await this.ref(role, text, exact), element: `${role} ${text}` });
  }

  async type(role, name, text, options = {}) {
    await this.tool('browser_type', { target: await this.ref(role, name, true), element: `${role} ${name}`, text, ...options });
  }

  async fill(fields) {
    const resolved = [];
    for (const f of fields) resolved.push({ target: await this.ref(f.role, f.name, true), name: f.name, type: f.type, value: f.value });
    await this.tool('browser_fill_form', { fields: resolved });
  }
}

/** The value a browser_evaluate answer carries (its "### Result" section), parsed. */
export function evaluated(text) {
  const m = /### Result\s*\n(?:```(?:json)?\n)?([^\n]*)/.exec(text);
  if (!m) throw new Error(`no result in the answer: ${text.slice(0, 300)}`);
  return JSON.parse(m[1]);
}

const state = (key) => `() => document.getElementById('state').dataset.${key}`;

/**
 * The tasks. `page`: under /realapps/ (or a fixture page at the root when it starts with '/'); `ready`: text the page
 * shows once its app has rendered; `run`: the agent's plan; `check`: a function the page runs, whose answer must
 * equal `expect`.
 */
export const TASKS = [
  {
    id: 'antd-date',
    library: 'antd',
    page: 'antd-booking.html',
    ready: 'Book a room',
    goal: 'pick 15 March in the Arrival date picker',
    async run(a) {
      await a.click('textbox', 'Arrival', true);
      await a.click('cell', '15', true);
    },
    check: "() => document.getElementById('chosen-date').textContent",
    expect: '2024-03-15',
  },
  {
    id: 'antd-row',
    library: 'antd',
    page: 'antd-booking.html',
    ready: 'Book a room',
    goal: 'open the Garden suite row of the rooms table',
    run: (a) => a.click('row', 'Garden suite'),
    check: "() => document.getElementById('chosen-room').textContent",
    expect: 'Garden suite',
  },
  {
    id: 'antd-card',
    library: 'antd',
    page: 'antd-booking.html',
    ready: 'Book a room',
    goal: 'choose the Half board card',
    run: (a) => a.click('generic', 'Half board'),
    check: "() => document.getElementById('chosen-plan').textContent",
    expect: 'Half board',
  },
  {
    id: 'antd-select',
    library: 'antd',
    page: 'antd-booking.html',
    ready: 'Book a room',
    goal: 'choose 3 guests in the Guests select',
    async run(a) {
      await a.click('combobox', 'Guests', true);
      await a.click('option', '3 guests', true);
    },
    check: "() => document.getElementById('summary').dataset.guests",
    expect: '3',
  },
  {
    id: 'antd-slider',
    library: 'antd',
    page: 'antd-booking.html',
    ready: 'Book a room',
    goal: 'set the budget slider (a div with role=slider) to 200',
    run: (a) => a.fill([{ role: 'slider', name: 'Budget per night', type: 'slider', value: '200' }]),
    check: "() => document.getElementById('summary').dataset.budget",
    expect: '200',
  },
  {
    id: 'vue-item',
    library: 'vue',
    page: 'vue-tasks.html',
    ready: 'Today',
    goal: 'mark "Pay the rent" done (a list item with a Vue click listener)',
    run: (a) => a.click('listitem', 'Pay the rent'),
    check: "() => document.getElementById('done').textContent",
    expect: 'Done: Pay the rent',
  },
  {
    id: 'codemirror-slowly',
    library: 'codemirror',
    page: 'codemirror-editor.html',
    ready: 'Editor',
    goal: 'type a comment slowly at the caret, keeping the code',
    async run(a) {
      await a.tool('browser_type', { target: await a.ref('textbox', 'const answer'), element: 'editor', text: '// note ', slowly: true });
    },
    check: "() => { const d = window.editorDocument(); return d.includes('// note ') && d.includes('const answer = 42;'); }",
    expect: true,
  },
  {
    id: 'mui-slider',
    library: 'mui',
    page: 'mui-settings.html',
    ready: 'Settings',
    goal: 'set the Volume slider (its thumb covers its input) to 70',
    run: (a) => a.fill([{ role: 'slider', name: 'Volume', type: 'slider', value: '70' }]),
    check: state('volume'),
    expect: '70',
  },
  {
    id: 'mui-select',
    library: 'mui',
    page: 'mui-settings.html',
    ready: 'Settings',
    goal: 'choose Thirty in the Age select',
    async run(a) {
      await a.click('combobox', 'Age', true);
      await a.click('option', 'Thirty', true);
    },
    check: state('age'),
    expect: '30',
  },
  {
    id: 'mui-switch',
    library: 'mui',
    page: 'mui-settings.html',
    ready: 'Settings',
    goal: 'turn Wi-Fi on',
    run: (a) => a.click('switch', 'Wi-Fi', true),
    check: state('wifi'),
    expect: 'true',
  },
  {
    id: 'mui-menu',
    library: 'mui',
    page: 'mui-settings.html',
    ready: 'Settings',
    goal: 'export as CSV from the Export menu',
    async run(a) {
      await a.click('button', 'Export', true);
      await a.click('menuitem', 'As CSV', true);
    },
    check: state('exported'),
    expect: 'CSV',
  },
  {
    id: 'mui-dialog',
    library: 'mui',
    page: 'mui-settings.html',
    ready: 'Settings',
    goal: 'reset everything, confirming in the dialog',
    async run(a) {
      await a.click('button', 'Reset everything', true);
      await a.click('button', 'Reset', true);
    },
    check: state('reset'),
    expect: 'yes',
  },
  {
    id: 'headless-listbox',
    library: '@headlessui/react',
    page: 'headless-inbox.html',
    ready: 'Inbox',
    goal: 'assign Devon Webb',
    async run(a) {
      await a.click('button', 'Assignee', true);
      await a.click('option', 'Devon Webb', true);
    },
    check: state('assignee'),
    expect: 'Devon Webb',
  },
  {
    id: 'headless-menu',
    library: '@headlessui/react',
    page: 'headless-inbox.html',
    ready: 'Inbox',
    goal: 'archive from the Actions menu',
    async run(a) {
      await a.click('button', 'Actions', true);
      await a.click('menuitem', 'Archive', true);
    },
    check: state('action'),
    expect: 'Archive',
  },
  {
    id: 'headless-switch',
    library: '@headlessui/react',
    page: 'headless-inbox.html',
    ready: 'Inbox',
    goal: 'turn on "Notify me"',
    run: (a) => a.click('switch', 'Notify me', true),
    check: state('notify'),
    expect: 'true',
  },
  {
    id: 'headless-combobox',
    library: '@headlessui/react',
    page: 'headless-inbox.html',
    ready: 'Inbox',
    goal: 'type "ber" in the City combobox and choose Berlin',
    async run(a) {
      await a.type('combobox', 'City', 'ber', { slowly: true });
      await a.click('option', 'Berlin', true);
    },
    check: state('city'),
    expect: 'Berlin',
  },
  {
    id: 'shoelace-input',
    library: '@shoelace-style/shoelace',
    page: 'shoelace-invite.html',
    ready: 'Invite a friend',
    goal: 'invite ann@example.com',
    async run(a) {
      await a.type('textbox', 'Email address', 'ann@example.com');
      await a.click('button', 'Send invitation', true);
    },
    check: state('email'),
    expect: 'ann@example.com',
  },
  {
    id: 'shoelace-select',
    library: '@shoelace-style/shoelace',
    page: 'shoelace-invite.html',
    ready: 'Invite a friend',
    goal: 'invite as Editor (a select in shadow DOM)',
    async run(a) {
      await a.click('combobox', 'Role', true);
      await a.click('option', 'Editor', true);
      await a.click('button', 'Send invitation', true);
    },
    check: state('role'),
    expect: 'editor',
  },
  {
    id: 'shoelace-checkbox',
    library: '@shoelace-style/shoelace',
    page: 'shoelace-invite.html',
    ready: 'Invite a friend',
    goal: 'send the invitation with a welcome email',
    async run(a) {
      await a.click('checkbox', 'Send a welcome email', true);
      await a.click('button', 'Send invitation', true);
    },
    check: state('welcome'),
    expect: 'true',
  },
  {
    id: 'react-select-single',
    library: 'react-select',
    page: 'react-select-order.html',
    ready: 'Order a pizza',
    goal: 'choose the Thirty size',
    async run(a) {
      await a.click('combobox', 'Size (cm)', true);
      await a.click('option', 'Thirty', true);
    },
    check: state('size'),
    expect: 'Thirty',
  },
  {
    id: 'react-select-multi',
    library: 'react-select',
    page: 'react-select-order.html',
    ready: 'Order a pizza',
    goal: 'add Olives and Peppers as toppings',
    async run(a) {
      await a.click('combobox', 'Toppings', true);
      await a.click('option', 'Olives', true);
      await a.click('combobox', 'Toppings', true);
      await a.click('option', 'Peppers', true);
    },
    check: state('toppings'),
    expect: 'Olives,Peppers',
  },
  {
    id: 'tiptap-send',
    library: '@tiptap/react',
    page: 'tiptap-chat.html',
    ready: 'Assistant',
    goal: 'send "Hello there" from the chat box (named only by its placeholder)',
    run: (a) => a.type('textbox', 'Ask anything', 'Hello there', { submit: true }),
    check: state('sent'),
    expect: 'Hello there',
  },
  {
    id: 'virtual-row',
    library: '@tanstack/react-virtual',
    page: 'tiptap-chat.html',
    ready: 'Assistant',
    goal: 'open conversation 3 in a virtualised list',
    run: (a) => a.click('generic', 'Conversation 3'),
    check: state('opened'),
    expect: '3',
  },
  {
    id: 'plain-hover-menu',
    library: 'plain JS',
    page: '/clickables.html',
    ready: 'Clickables',
    goal: 'open Products › Laptops in a CSS hover menu',
    async run(a) {
      await a.hover('listitem', 'Products');
      await a.click('link', 'Laptops', true);
    },
    check: '() => location.hash',
    expect: '#laptops',
  },
  {
    id: 'plain-listener',
    library: 'plain JS',
    page: '/clickables.html',
    ready: 'Clickables',
    goal: 'pick Banana (list items with addEventListener)',
    run: (a) => a.click('listitem', 'Banana'),
    check: "() => document.getElementById('picked').textContent",
    expect: 'Banana',
  },
  {
    id: 'plain-anchor',
    library: 'plain JS',
    page: '/clickables.html',
    ready: 'Clickables',
    goal: 'follow the "terms" anchor (no href, a click handler)',
    run: (a) => a.click('link', 'terms', true),
    check: "() => document.getElementById('picked').textContent",
    expect: 'terms',
  },
];

/**
 * Runs one task in a fresh tab of the session `call` drives: the plan, then the check. `url(path)` turns a page's
 * path into the address the browser opens. Never throws: the outcome says what happened.
 */
export async function runTask(task, call, url) {
  const agent = new ScriptedAgent(call);
  const started = Date.now();
  const path = task.page.startsWith('/') ? task.page : `/realapps/${task.page}`;
  let failure;
  try {
    await agent.open(url(path), task.ready);
    await task.run(agent);
  } catch (err) {
    failure = err;
  }
  let got;
  try {
    const { text, isError } = await call('browser_evaluate', { function: task.check });
    got = isError ? `(check failed: ${text.slice(0, 200)})` : evaluated(text);
  } catch (err) {
    got = `(check failed: ${err instanceof Error ? err.message : String(err)})`;
  }
  const done = got === task.expect;
  return {
    id: task.id,
    library: task.library,
    done: done && !failure,
    // Every tool answered as if it had worked, yet the page does not show it.
    falseSuccess: !failure && !done,
    why: failure
      ? failure instanceof Error
        ? failure.message
        : String(failure)
      : done
        ? undefined
        : `the page holds ${JSON.stringify(got)}, not ${JSON.stringify(task.expect)}`,
    chars: agent.chars,
    calls: agent.calls,
    ms: Date.now() - started,
  };
}
