import { DaemonConnection, type ConnectionStatus } from './connection.js';
import { BrowserSessions } from './sessions.js';
import { browserId, loadSettings } from './settings.js';

declare const __EXTENSION_VERSION__: string;

/** Messages the popup and options page send to the worker. */
export type UiRequest = { type: 'status' } | { type: 'connect' } | { type: 'disconnect' };
export interface UiStatus {
  connection: ConnectionStatus;
  sessions: Array<{ sessionId: string; clientName: string | null; tabs: number }>;
  version: string;
}

const sessions = new BrowserSessions((event) => connection.send(event));
let connection: DaemonConnection;

function browserName(): string {
  const m = /(?:Chrome|Chromium|Edg)\/(\d+)/.exec(navigator.userAgent);
  return m ? `${navigator.userAgent.includes('Edg/') ? 'Edge' : 'Chrome'} ${m[1]}` : 'Chromium';
}

// Everything below must be registered synchronously at startup: a stopped worker is woken only by these events.
const ready = (async () => {
  await sessions.restore();
  const settings = await loadSettings();
  connection = new DaemonConnection(settings, {
    hello: async () => ({ browserId: await browserId(), browser: browserName(), version: __EXTENSION_VERSION__, tabs: sessions.reportTabs() }),
    command: (command) => {
      void sessions.run(command).then((response) => connection.send(response));
    },
    event: (event) => {
      if (event.name === 'session_opened') {
        const name = (event.payload as { clientName?: unknown } | null)?.clientName;
        sessions.sessionOpened(event.sessionId, typeof name === 'string' ? name : null);
      } else if (event.name === 'session_closed') void sessions.sessionClosed(event.sessionId);
    },
    status: (status) => void chrome.storage.session.set({ connection: status }),
  });
  const { paused } = await chrome.storage.local.get('paused');
  if (paused !== true) connection.start();
})();

chrome.tabs.onRemoved.addListener((tabId) => void ready.then(() => sessions.tabRemoved(tabId)));
chrome.tabs.onCreated.addListener((tab) => void ready.then(() => sessions.tabCreated(tab)));
chrome.debugger.onDetach.addListener((source, reason) => {
  if (source.tabId !== undefined) void ready.then(() => sessions.debuggerDetached(source.tabId!, reason));
});

// A stopped worker comes back only on an event: an alarm every 30 s brings it back to reconnect.
chrome.alarms.create('reconnect', { periodInMinutes: 0.5 });
chrome.alarms.onAlarm.addListener((alarm) => {
  if (alarm.name !== 'reconnect') return;
  void ready.then(async () => {
    const { paused } = await chrome.storage.local.get('paused');
    if (paused !== true) connection.start(await loadSettings());
  });
});

chrome.storage.onChanged.addListener((changes, area) => {
  if (area !== 'local' || (!changes.daemonUrl && !changes.accessToken)) return;
  void ready.then(async () => {
    await chrome.storage.local.set({ paused: false });
    connection.start(await loadSettings());
  });
});

chrome.runtime.onMessage.addListener((request: UiRequest, _sender, reply: (status: UiStatus) => void) => {
  void ready.then(async () => {
    if (request.type === 'disconnect') {
      await chrome.storage.local.set({ paused: true });
      connection.stop();
    } else if (request.type === 'connect') {
      await chrome.storage.local.set({ paused: false });
      connection.start(await loadSettings());
    }
    reply({ connection: connection.status, sessions: sessions.summary(), version: __EXTENSION_VERSION__ });
  });
  return true;
});
