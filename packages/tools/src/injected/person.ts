/** The hand-off banner (browser_request_user). */

/**
 * A banner at the top of the tab with the agent's name and message and Done / Decline; resolves with the person's
 * answer. Only a real click counts (`isTrusted`): the page's own scripts cannot answer for the person. The page moves
 * down by the banner's height while it shows, so the banner covers none of it (an element the page fixes to the top
 * of the window stays under it). Shown again if the page navigates before the answer.
 */
export function askPerson(message: string, agentName: string | null): Promise<'done' | 'declined'> {
  document.getElementById('browsermcp-ask')?.remove();
  const host = document.createElement('div');
  host.id = 'browsermcp-ask';
  host.style.cssText = 'position:fixed;inset:0 0 auto 0;z-index:2147483647;';
  const root = host.attachShadow({ mode: 'open' });
  root.innerHTML =
    '<style>div{display:flex;gap:12px;align-items:center;padding:10px 16px;background:#fff8c5;color:#1f2328;' +
    'font:14px/1.4 system-ui,sans-serif;border-bottom:2px solid #9a6700;box-shadow:0 2px 6px #0003}' +
    'p{margin:0;flex:1}b{margin-right:6px}button{font:inherit;padding:4px 12px;border-radius:6px;border:1px solid #1f2328;background:#fff;cursor:pointer}' +
    '#done{background:#1a7f37;border-color:#1a7f37;color:#fff}</style>' +
    '<div role="alertdialog" aria-label="An agent asks you"><p><b id="who"></b><span id="message"></span></p>' +
    '<button id="done">Done</button><button id="decline">Decline</button></div>';
  (root.getElementById('who') as HTMLElement).textContent = `${agentName ? `"${agentName}"` : 'An agent'} asks you:`;
  (root.getElementById('message') as HTMLElement).textContent = message;
  document.documentElement.append(host);
  const html = document.documentElement.style;
  const before = { value: html.getPropertyValue('margin-top'), priority: html.getPropertyPriority('margin-top') };
  html.setProperty('margin-top', `${host.getBoundingClientRect().height}px`, 'important');
  return new Promise((resolve) => {
    const answer = (value: 'done' | 'declined') => (event: Event) => {
      if (!event.isTrusted) return;
      host.remove();
      if (before.value) html.setProperty('margin-top', before.value, before.priority);
      else html.removeProperty('margin-top');
      resolve(value);
    };
    root.getElementById('done')!.addEventListener('click', answer('done'));
    root.getElementById('decline')!.addEventListener('click', answer('declined'));
  });
}
