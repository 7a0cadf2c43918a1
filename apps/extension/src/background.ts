import { ExtensionEvents, HOLD_PROOF_SIGN_WINDOW_MS, parseCancel, parseProveHold, parseSessionOpened, type Envelope } from '@browsermcp/protocol';
import { browserIdentity } from './browser-key.js';
import { NOTIFICATION_BUTTONS, sessionOfHandoff, sessionOfNotification } from './ask-person.js';
import { DaemonConnection, type ConnectionStatus } from './connection.js';
import { normalizeSites } from './offlimits.js';
import type { Decision } from './approvals.js';
import { BrowserSessions, type AgentSummary } from './sessions.js';
import { loadSettings, needsPairing, pairWith } from './settings.js';

declare const __EXTENSION_VERSION__: string;

/** Messages the popup and options page send to the worker. */
export type UiRequest =
  | { type: 'status' }
  | { type: 'connect' }
  | { type: 'disconnect' }
  /** Stop one agent: close its tabs and end its session. */
  | { type: 'stop'; sessionId: string }
  /** Bring one agent's tab to the front. */
  | { type: 'show'; sessionId: string }
  /** Share one of the person's tabs with an agent. */
  | { type: 'share'; tabId: number; sessionId: string }
  /** Answer a new agent's request to use this browser. */
  | { type: 'decide'; sessionId: string; decision: Decision }
  /** Pair with the daemon a pairing code names (pasted by the person). */
  | { type: 'pair'; code: string };
export interface UiStatus {
  connection: ConnectionStatus;
  /** Whether this browser holds the pairing secret of the daemon it connects to, and whether that daemon needs one. */
  pairing: { needed: boolean; paired: boolean; problem?: string | undefined };
  sessions: AgentSummary[];
  /** The tab the person may share with an agent (the one they looked at last), if any. */
  shareable: { tabId: number; title: string; url: string } | null;
  /** Whether the person lets agents call the tools sites offer (WebMCP; the options page). */
  pageTools: boolean;
  version: string;
}

const sessions = new BrowserSessions((event) => connection.send(event));
let connection: DaemonConnection;

/** What the popup says after the person pressed Cancel on Chrome's "started debugging this browser" bar. */
const CANCELLED_AT_BAR = "You pressed Cancel on Chrome's debugging bar: every agent here was stopped. Press Connect to let agents in again.";

/** Disconnects and stays so (across worker restarts) until the person presses Connect; `why` shows in the popup. */
async function pause(why?: string): Promise<void> {
  await chrome.storage.local.set({ paused: true, pausedWhy: why ?? null });
  connection.stop(why);
}

function browserName(): string {
  const m = /(?:Chrome|Chromium|Edg)\/(\d+)/.exec(navigator.userAgent);
  return m ? `${navigator.userAgent.includes('Edg/') ? 'Edge' : 'Chrome'} ${m[1]}` : 'Chromium';
}

// Everything below must be registered synchronously at startup: a stopped worker is woken only by these events.
const ready = (async () => {
  await sessions.restore();
  const { offLimits } = await chrome.storage.local.get(['offLimits']);
  sessions.setOffLimits(normalizeSites(typeof offLimits === 'string' ? offLimits : ''));
  await sessions.syncApprovalSettings();
  await sessions.syncPageTools();
  const settings = await loadSettings();
  connection = new DaemonConnection(settings, {
    hello: async () => {
      const { id, key } = await browserIdentity();
      return { browserId: id, key, browser: browserName(), version: __EXTENSION_VERSION__, tabs: sessions.reportTabs() };
    },
    command: (command) => {
      void sessions.run(command).then((response) => connection.send(response));
    },
    event: (event, reply) => {
      if (event.name === ExtensionEvents.sessionOpened) {
        const opened = parseSessionOpened(event.payload);
        // An older daemon may send fewer fields; a payload we cannot read still opens the session, unnamed.
        if (opened.ok)
          sessions.sessionOpened(event.sessionId, opened.value.clientName, opened.value.settings, opened.value.agent, opened.value.resumed === true);
        else sessions.sessionOpened(event.sessionId, null);
      } else if (event.name === ExtensionEvents.sessionClosed) void sessions.sessionClosed(event.sessionId);
      else if (event.name === ExtensionEvents.cancel) {
        const cancel = parseCancel(event.payload);
        if (cancel.ok) sessions.cancel(cancel.value.wireId, cancel.value.reason);
      } else if (event.name === ExtensionEvents.proveHold) void proveHold(event.payload, reply);
    },
    status: (status) => void chrome.storage.session.set({ connection: status }),
  });
  const { paused, pausedWhy } = await chrome.storage.local.get(['paused', 'pausedWhy']);
  if (paused !== true) connection.start();
  else if (typeof pausedWhy === 'string') connection.stop(pausedWhy);
})();

chrome.tabs.onRemoved.addListener((tabId) => void ready.then(() => sessions.tabRemoved(tabId)));
chrome.webNavigation.onCreatedNavigationTarget.addListener(({ sourceTabId, tabId }) => void ready.then(() => sessions.popupOpened(sourceTabId, tabId)));
chrome.tabs.onActivated.addListener(({ tabId, windowId }) => void ready.then(() => sessions.tabActivated(tabId, windowId)));
chrome.debugger.onDetach.addListener((source, reason) => {
  if (source.tabId === undefined) return;
  void ready.then(async () => {
    if (await sessions.debuggerDetached(source.tabId!, reason)) await pause(CANCELLED_AT_BAR);
  });
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

chrome.webNavigation.onBeforeNavigate.addListener(({ tabId, frameId, url }) => {
  if (frameId === 0) void ready.then(() => sessions.navigationStarted(tabId, url));
});
chrome.webNavigation.onErrorOccurred.addListener(({ tabId, frameId, url }) => {
  if (frameId === 0) void ready.then(() => sessions.navigationFailed(tabId, url));
});
// A page that arrives without a navigation of its own being heard first (history, a restored tab) is checked too.
chrome.webNavigation.onCommitted.addListener(({ tabId, frameId, url }) => {
  if (frameId === 0) void ready.then(() => sessions.pageCommitted(tabId, url));
});

chrome.storage.onChanged.addListener((changes, area) => {
  if (area === 'local' && (changes.askBeforeNewAgents || changes.allowedAgents)) {
    void ready.then(() => sessions.syncApprovalSettings());
  }
  if (area === 'local' && changes.allowPageTools) void ready.then(() => sessions.syncPageTools());
  if (area === 'local' && changes.offLimits) {
    const text = changes.offLimits.newValue;
    void ready.then(() => sessions.setOffLimits(normalizeSites(typeof text === 'string' ? text : '')));
  }
  if (area !== 'local' || (!changes.daemonUrl && !changes.accessToken && !changes.pairingCode)) return;
  void ready.then(async () => {
    await chrome.storage.local.set({ paused: false });
    connection.start(await loadSettings());
  });
});

chrome.runtime.onMessage.addListener((request: UiRequest, _sender, reply: (status: UiStatus) => void) => {
  void ready.then(async () => {
    if (request.type === 'disconnect') {
      await pause();
    } else if (request.type === 'connect') {
      await chrome.storage.local.set({ paused: false, pausedWhy: null });
      connection.start(await loadSettings());
    } else if (request.type === 'stop') {
      await sessions.stopByPerson(request.sessionId);
    } else if (request.type === 'show') {
      await sessions.show(request.sessionId);
    } else if (request.type === 'share') {
      await sessions.shareTab(request.tabId, request.sessionId);
    } else if (request.type === 'decide') {
      await decide(request.sessionId, request.decision);
    }
    // The storage change that pairing makes reconnects (see onChanged); a bad code is said here, nothing stored.
    const problem = request.type === 'pair' ? await pairWith(request.code) : undefined;
    const settings = await loadSettings();
    reply({
      connection: connection.status,
      // Paired means the daemon accepted it: a well-formed code with another secret is not a pairing.
      pairing: {
        needed: needsPairing(settings.daemonUrl),
        paired: settings.pairingSecret !== undefined && connection.status.pairingRefused !== true,
        problem: problem ?? (connection.status.pairingRefused ? connection.status.error : undefined),
      },
      sessions: sessions.summary(),
      pageTools: sessions.pageToolsAllowed,
      shareable: await sessions.shareableTab(),
      version: __EXTENSION_VERSION__,
    });
  });
  return true;
});

/**
 * Answers the daemon's `prove_hold`: the browser signs that that daemon instance holds it now, so the other daemons
 * of its cluster believe the claim from the browser itself; on the connection that asked. A payload we cannot read is
 * ignored.
 */
async function proveHold(payload: unknown, reply: (envelope: Envelope) => void): Promise<void> {
  const asked = parseProveHold(payload);
  if (!asked.ok) return;
  const { instance, at, user } = asked.value;
  // Only for about now: a daemon must not collect proofs it could show for days ahead.
  if (Math.abs(at - Date.now()) > HOLD_PROOF_SIGN_WINDOW_MS) return;
  const sig = await (await browserIdentity()).sign(instance, at, user);
  reply({ wireId: crypto.randomUUID(), sessionId: 'hold', type: 'event', name: ExtensionEvents.holdProof, payload: { instance, at, sig } });
}

/** The person's answer to a new agent, from the popup or the notification: remembered when it is Always allow. */
async function decide(sessionId: string, decision: Decision): Promise<void> {
  await ready;
  const always = sessions.decide(sessionId, decision);
  if (decision === 'always') await chrome.storage.local.set({ allowedAgents: always });
}

// A hand-off's notification, clicked: the agent's tab comes in front, with the banner waiting for the person.
chrome.notifications.onClicked.addListener((notificationId) => {
  const sessionId = sessionOfHandoff(notificationId);
  if (sessionId !== undefined) void ready.then(() => sessions.show(sessionId));
});

chrome.notifications.onButtonClicked.addListener((notificationId, index) => {
  const sessionId = sessionOfNotification(notificationId);
  const decision = NOTIFICATION_BUTTONS[index];
  if (sessionId !== undefined && decision !== undefined) void decide(sessionId, decision);
});
