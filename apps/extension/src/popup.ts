import type { UiRequest, UiStatus } from './background.js';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const LABELS = { connected: 'Connected', connecting: 'Connecting…', error: 'Not connected', disconnected: 'Disconnected' } as const;

async function ask(request: UiRequest): Promise<UiStatus> {
  return (await chrome.runtime.sendMessage(request)) as UiStatus;
}

function render(status: UiStatus): void {
  const { connection } = status;
  $('state').className = `state ${connection.state}`;
  $('state-text').textContent = LABELS[connection.state];
  $('url').textContent = connection.url;
  const error = $('error');
  error.hidden = !connection.error || connection.state === 'connected';
  error.textContent = connection.error ?? '';
  const list = $('sessions');
  list.replaceChildren(
    ...status.sessions.map((s) => {
      const li = document.createElement('li');
      const name = document.createElement('span');
      name.textContent = s.clientName ?? 'MCP client';
      const tabs = document.createElement('span');
      tabs.className = 'muted';
      tabs.textContent = `${s.tabs} tab${s.tabs === 1 ? '' : 's'}`;
      li.append(name, tabs);
      return li;
    }),
  );
  $('no-sessions').hidden = status.sessions.length > 0;
  const toggle = $<HTMLButtonElement>('toggle');
  const off = connection.state === 'disconnected';
  toggle.textContent = off ? 'Connect' : 'Disconnect';
  toggle.onclick = async () => render(await ask({ type: off ? 'connect' : 'disconnect' }));
  $('version').textContent = `v${status.version}`;
}

void ask({ type: 'status' }).then(render);
// The worker stores each state change; the popup follows while it is open.
chrome.storage.onChanged.addListener((changes, area) => {
  if (area === 'session' && changes.connection) void ask({ type: 'status' }).then(render);
});
