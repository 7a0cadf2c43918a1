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
