import type { UiRequest, UiStatus } from './background.js';
import type { AgentSummary, LastAction } from './sessions.js';
import { canShareWith } from './approvals.js';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const LABELS = { connected: 'Connected', connecting: 'Connecting…', error: 'Not connected', disconnected: 'Disconnected' } as const;

async function ask(request: UiRequest): Promise<UiStatus> {
  return (await chrome.runtime.sendMessage(request)) as UiStatus;
}

// Drawing replaces the rows, and the worker's news (an agent at work) comes at any moment: a drawing between a press
// and its release would swallow the person's click. So while a button is held, the newest status waits, and is drawn
// once the click is through.
let held: { status: UiStatus | undefined } | undefined;
addEventListener('pointerdown', () => (held = { status: undefined }), true);
for (const end of ['pointerup', 'pointercancel']) {
  addEventListener(
    end,
    () =>
      setTimeout(() => {
        const waiting = held?.status;
        held = undefined;
        if (waiting) render(waiting);
      }),
    true,
  );
}

function render(status: UiStatus): void {
  if (held) {
    held.status = status;
    return;
  }
  draw(status);
}

function draw(status: UiStatus): void {
  const { connection } = status;
  $('state').className = `state ${connection.state}`;
  $('state-text').textContent = LABELS[connection.state];
  $('url').textContent = connection.url;
  const pairing = renderPairing(status);
  const error = $('error');
  // Not paired: the pairing form says it and what to do; the same words again above it would only crowd it.
  error.hidden = !connection.error || connection.state === 'connected' || pairing === 'unpaired';
  error.textContent = connection.error ?? '';
  const list = $('sessions');
  list.replaceChildren(...status.sessions.map(agentRow));
  $('no-sessions').hidden = status.sessions.length > 0;
  renderShare(status);
  $('page-tools').textContent = status.pageTools
    ? "Sites' own tools (WebMCP): agents may call them; each call shows in the agent's activity."
    : "Sites' own tools (WebMCP): agents may not call them (Settings).";
  // Connected: Disconnect pauses browsermcp here. Not connected (paused, or failing and retrying): Connect tries now.
  const toggle = $<HTMLButtonElement>('toggle');
  const connected = connection.state === 'connected';
  toggle.textContent = connected ? 'Disconnect' : 'Connect';
  toggle.title = connected ? 'Pause browsermcp in this browser: agents are told to ask you to press Connect' : `Connect to ${connection.url} now`;
  toggle.onclick = async () => render(await ask({ type: connected ? 'disconnect' : 'connect' }));
  $('version').textContent = `v${status.version}`;
}

/** Paired or not with the daemon it connects to, and the form to pair while it is not (or the pasted code was wrong). */
function renderPairing(status: UiStatus): 'unneeded' | 'paired' | 'unpaired' {
  const { needed, paired, problem } = status.pairing;
  $('paired').textContent = !needed ? '' : paired ? '· paired' : '· not paired';
  $('pair-form').hidden = !needed || (paired && !problem);
  const shown = $('pair-problem');
  shown.hidden = !problem;
  shown.textContent = problem ?? '';
  return !needed ? 'unneeded' : paired ? 'paired' : 'unpaired';
}

$('pair-form').addEventListener('submit', (event) => {
  event.preventDefault();
  void ask({ type: 'pair', code: $<HTMLInputElement>('pair-code').value }).then(render);
});

/**
 * "Share <the tab you were looking at> with <agent>": only when there is such a tab and an agent the person allowed
 * to share it with; nobody is chosen for them (a wrong default would hand their tab to the wrong agent).
 */
function renderShare(status: UiStatus): void {
  const { shareable } = status;
  const agents = status.sessions.filter(canShareWith);
  $('share').hidden = !shareable || agents.length === 0;
  if (!shareable || agents.length === 0) return;
  $('share-title').textContent = shareable.title;
  $('share-title').title = shareable.url;
  const select = $<HTMLSelectElement>('share-agent');
  const button = $<HTMLButtonElement>('share-button');
  const chosen = select.value;
  const none = document.createElement('option');
  none.value = '';
  none.textContent = 'Choose an agent…';
  none.disabled = true;
  select.replaceChildren(
    none,
    ...agents.map((s) => {
      const option = document.createElement('option');
      option.value = s.sessionId;
      option.textContent = s.clientName ?? 'MCP client';
      return option;
    }),
  );
  select.value = agents.some((s) => s.sessionId === chosen) ? chosen : '';
  button.disabled = select.value === '';
  select.onchange = () => {
    button.disabled = select.value === '';
  };
  button.onclick = async () => {
    if (select.value) render(await ask({ type: 'share', tabId: shareable.tabId, sessionId: select.value }));
  };
}

/** One agent: its name (a click shows its tab), tab count, last action in words, and a Stop button. */
function agentRow(agent: AgentSummary): HTMLLIElement {
  const li = document.createElement('li');
  li.className = 'agent';
  li.dataset.sessionId = agent.sessionId;
  const about = document.createElement('button');
  about.className = 'link agent-show';
  about.title = 'Show its tab';
  const name = document.createElement('strong');
  name.textContent = agent.clientName ?? 'MCP client';
  const detail = document.createElement('span');
  detail.className = 'muted agent-detail';
  const shared = agent.sharedTabs ? ` (${agent.sharedTabs} yours, shared: Stop gives ${agent.sharedTabs === 1 ? 'it' : 'them'} back)` : '';
  detail.textContent = `${agent.tabs} tab${agent.tabs === 1 ? '' : 's'}${shared}${agent.lastAction ? ` · ${describeAction(agent.lastAction)}` : ''}`;
  about.append(name, detail);
  about.onclick = () => void ask({ type: 'show', sessionId: agent.sessionId });
  if (agent.approval === 'pending') {
    // A new agent asks to use this browser: nothing runs until the person answers. Who it is (what its gateway
    // authenticated, which its name is not) and what its call wants, so the person can answer knowingly.
    detail.textContent = `wants to use this browser${agent.wants ? `: ${agent.wants}` : ''}`;
    if (agent.agent) {
      const who = document.createElement('span');
      who.className = 'muted agent-identity';
      who.textContent = agent.agent;
      detail.before(who);
    }
    li.classList.add('pending');
    const buttons = document.createElement('span');
    buttons.className = 'decide';
    for (const [decision, label] of [
      ['once', 'Allow once'],
      ['always', 'Always allow'],
      ['deny', 'Deny'],
    ] as const) {
      const button = document.createElement('button');
      button.className = `decide-${decision}`;
      button.textContent = label;
      button.onclick = async () => render(await ask({ type: 'decide', sessionId: agent.sessionId, decision }));
      buttons.append(button);
    }
    li.append(about, buttons);
    return li;
  }
  if (agent.approval === 'denied') detail.textContent = 'denied';
  if (agent.asking) {
    // A step handed to the person: a click on the agent shows the tab with its banner (Done / Decline).
    li.classList.add('asking');
    detail.textContent = `asks you: ${agent.asking.replace(/^Waiting for the person: /, '')} — click to see the tab`;
  }
  const stop = document.createElement('button');
  stop.className = 'agent-stop';
  stop.textContent = 'Stop';
  const own = agent.tabs - agent.sharedTabs;
  stop.title =
    `End this agent’s session: closes the ${own === 1 ? 'tab' : `${own} tabs`} it opened` +
    (agent.sharedTabs
      ? `; the ${agent.sharedTabs === 1 ? 'tab' : `${agent.sharedTabs} tabs`} you shared go${agent.sharedTabs === 1 ? 'es' : ''} back to you, open`
      : '');
  stop.onclick = async () => render(await ask({ type: 'stop', sessionId: agent.sessionId }));
  li.append(about, stop);
  if (agent.activity.length) li.append(activityList(agent));
  return li;
}

/** Agents whose activity list the person opened: it stays open while the popup renders anew. */
const openActivity = new Set<string>();

/** What an agent did last (up to 20 actions, newest first), each with its time: folded under its row. */
function activityList(agent: AgentSummary): HTMLDetailsElement {
  const details = document.createElement('details');
  details.className = 'activity';
  details.open = openActivity.has(agent.sessionId);
  details.ontoggle = () => (details.open ? openActivity.add(agent.sessionId) : openActivity.delete(agent.sessionId));
  const summary = document.createElement('summary');
  summary.textContent = `Activity (${agent.activity.length})`;
  const list = document.createElement('ol');
  list.replaceChildren(
    ...agent.activity.map((action) => {
      const item = document.createElement('li');
      const time = document.createElement('time');
      time.dateTime = new Date(action.at).toISOString();
      time.textContent = new Date(action.at).toLocaleTimeString();
      item.append(time, ` ${describeAction(action, { ago: false })}`);
      return item;
    }),
  );
  details.append(summary, list);
  return details;
}

const WORDS: Record<string, string> = {
  browser_navigate: 'opened',
  browser_navigate_back: 'went back on',
  browser_navigate_forward: 'went forward on',
  browser_click: 'clicked on',
  browser_type: 'typed on',
  browser_fill_form: 'filled a form on',
  browser_select_option: 'chose an option on',
  browser_hover: 'hovered on',
  browser_drag: 'dragged on',
  browser_press_key: 'pressed a key on',
  browser_file_upload: 'uploaded a file on',
  browser_handle_dialog: 'answered a dialog on',
  browser_evaluate: 'ran a script on',
  browser_snapshot: 'read',
  browser_take_screenshot: 'took a screenshot of',
  browser_wait_for: 'waited on',
  browser_tabs: 'switched tabs, on',
  browser_console_messages: 'read the console of',
  browser_network_requests: 'read the requests of',
};

/** "clicked on example.com, 12 s ago" (the activity list, which shows each time, leaves out "ago"). */
function describeAction(action: LastAction, options: { ago?: boolean } = {}): string {
  if (action.pageTool !== undefined) {
    const what = `called the site's own tool "${action.pageTool}" on ${action.site ?? 'a blank page'}`;
    return options.ago === false ? what : `${what}, ${ago(Date.now() - action.at)}`;
  }
  const verb = WORDS[action.tool] ?? `used ${action.tool.replace(/^browser_/, '').replace(/_/g, ' ')} on`;
  const where = action.site ?? 'a blank page';
  return options.ago === false ? `${verb} ${where}` : `${verb} ${where}, ${ago(Date.now() - action.at)}`;
}

function ago(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s ago`;
  const m = Math.round(s / 60);
  return m < 60 ? `${m} min ago` : `${Math.round(m / 60)} h ago`;
}

void ask({ type: 'status' }).then(render);
// "12 s ago" keeps counting while the popup is open.
setInterval(() => void ask({ type: 'status' }).then(render), 5000);
// The worker stores each change of the connection and of the sessions; the popup follows while it is open.
chrome.storage.onChanged.addListener((changes, area) => {
  if (area === 'session' && (changes.connection || changes.sessions)) void ask({ type: 'status' }).then(render);
});
