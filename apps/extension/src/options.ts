import { normalizeSites } from './offlimits.js';
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

const limits = document.getElementById('off-limits') as HTMLTextAreaElement;
const limitsSaved = document.getElementById('limits-saved') as HTMLSpanElement;

// The list can be edited once it is read: typing before that would be overwritten by it.
void chrome.storage.local.get('offLimits').then(({ offLimits }) => {
  limits.value = typeof offLimits === 'string' ? offLimits : '';
  limits.disabled = false;
});

document.getElementById('limits-form')!.addEventListener('submit', (event) => {
  event.preventDefault();
  // The worker applies the list to every agent as soon as it is stored.
  void chrome.storage.local.set({ offLimits: normalizeSites(limits.value).join('\n') }).then(() => {
    limits.value = normalizeSites(limits.value).join('\n');
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
