import { parseAllowedAgents, type AllowedAgent } from './approvals.js';
import { parseSites } from './offlimits.js';
import { checkDaemonUrl, loadSettings } from './settings.js';

const url = document.getElementById('url') as HTMLInputElement;
const token = document.getElementById('token') as HTMLInputElement;
const problem = document.getElementById('problem') as HTMLParagraphElement;
const saved = document.getElementById('saved') as HTMLSpanElement;

const askAgents = document.getElementById('ask-agents') as HTMLInputElement;
void chrome.storage.local.get('askBeforeNewAgents').then(({ askBeforeNewAgents }) => {
  askAgents.checked = askBeforeNewAgents !== false;
});
askAgents.addEventListener('change', () => void chrome.storage.local.set({ askBeforeNewAgents: askAgents.checked }));

// Off unless the person turns it on: a site's own tool can act for them in one step.
const pageTools = document.getElementById('page-tools') as HTMLInputElement;
void chrome.storage.local.get('allowPageTools').then(({ allowPageTools }) => {
  pageTools.checked = allowPageTools === true;
});
pageTools.addEventListener('change', () => void chrome.storage.local.set({ allowPageTools: pageTools.checked }));

const limits = document.getElementById('off-limits') as HTMLTextAreaElement;
const limitsSaved = document.getElementById('limits-saved') as HTMLSpanElement;

// The list can be edited once it is read: typing before that would be overwritten by it.
void chrome.storage.local.get('offLimits').then(({ offLimits }) => {
  limits.value = typeof offLimits === 'string' ? offLimits : '';
  limits.disabled = false;
});

const limitsProblem = document.getElementById('limits-problem') as HTMLParagraphElement;

document.getElementById('limits-form')!.addEventListener('submit', (event) => {
  event.preventDefault();
  limitsSaved.hidden = true;
  // Nothing is saved while an entry is not a site: the person fixes it first, knowing what was wrong.
  const { sites, problems } = parseSites(limits.value);
  limitsProblem.hidden = problems.length === 0;
  limitsProblem.textContent = problems.join(' ');
  if (problems.length) return;
  // The worker applies the list to every agent as soon as it is stored.
  void chrome.storage.local.set({ offLimits: sites.join('\n') }).then(() => {
    limits.value = sites.join('\n');
    limitsSaved.hidden = false;
  });
});

void loadSettings().then((s) => {
  url.value = s.daemonUrl;
  token.value = s.accessToken;
});

document.getElementById('form')!.addEventListener('submit', (event) => {
  event.preventDefault();
  const value = url.value.trim();
  const reason = checkDaemonUrl(value);
  problem.hidden = !reason;
  problem.textContent = reason ?? '';
  saved.hidden = true;
  if (reason) return;
  // The worker reconnects when these change.
  void chrome.storage.local.set({ daemonUrl: value, accessToken: token.value.trim() }).then(() => {
    saved.hidden = false;
  });
});

// Pairing again from here as from the popup: the worker checks the code, and the daemon's answer says whether it took.
const pairCode = document.getElementById('pair-code') as HTMLInputElement;
const pairProblem = document.getElementById('pair-problem') as HTMLParagraphElement;
const pairState = document.getElementById('pair-state') as HTMLSpanElement;

type PairingStatus = { pairing: { needed: boolean; paired: boolean; problem?: string | undefined }; connection: { state: string } };
function renderPairing(status: PairingStatus): void {
  const { needed, paired, problem } = status.pairing;
  pairProblem.hidden = !problem;
  pairProblem.textContent = problem ?? '';
  pairState.textContent = !needed ? '' : paired ? (status.connection.state === 'connected' ? 'Paired and connected.' : 'Paired.') : 'Not paired.';
}
const askStatus = (request: object) => chrome.runtime.sendMessage(request) as Promise<PairingStatus>;
void askStatus({ type: 'status' }).then(renderPairing);
chrome.storage.onChanged.addListener((changes, area) => {
  if (area === 'session' && changes.connection) void askStatus({ type: 'status' }).then(renderPairing);
});
document.getElementById('pair-form')!.addEventListener('submit', (event) => {
  event.preventDefault();
  void askStatus({ type: 'pair', code: pairCode.value }).then(renderPairing);
});

// The agents always allowed, each with Revoke: the person can see and take back every "Always allow".
const alwaysList = document.getElementById('always-list') as HTMLUListElement;
const alwaysNone = document.getElementById('always-none') as HTMLParagraphElement;

function renderAlways(agents: AllowedAgent[]): void {
  alwaysNone.hidden = agents.length > 0;
  alwaysList.replaceChildren(
    ...agents.map((entry) => {
      const li = document.createElement('li');
      li.className = 'allowed-agent';
      const about = document.createElement('span');
      about.textContent = `${entry.name} — ${entry.agent}, since ${new Date(entry.since).toLocaleString()}`;
      const revoke = document.createElement('button');
      revoke.className = 'revoke';
      revoke.textContent = 'Revoke';
      revoke.onclick = async () => {
        const now = parseAllowedAgents((await chrome.storage.local.get('allowedAgents')).allowedAgents);
        await chrome.storage.local.set({ allowedAgents: now.filter((e) => e.agent !== entry.agent) });
      };
      li.append(about, revoke);
      return li;
    }),
  );
}

void chrome.storage.local.get('allowedAgents').then(({ allowedAgents }) => renderAlways(parseAllowedAgents(allowedAgents)));
chrome.storage.onChanged.addListener((changes, area) => {
  if (area === 'local' && changes.allowedAgents) renderAlways(parseAllowedAgents(changes.allowedAgents.newValue));
});
