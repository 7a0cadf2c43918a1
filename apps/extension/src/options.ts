import { checkDaemonUrl, loadSettings } from './settings.js';

const url = document.getElementById('url') as HTMLInputElement;
const token = document.getElementById('token') as HTMLInputElement;
const problem = document.getElementById('problem') as HTMLParagraphElement;
const saved = document.getElementById('saved') as HTMLSpanElement;

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
