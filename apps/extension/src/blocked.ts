// The page an agent's tab shows instead of a site the person put off limits: which address, and which entry of their
// list kept it out (the query string, written by offlimits.ts's blockedPageUrl).
const query = new URLSearchParams(location.search);
document.getElementById('url')!.textContent = query.get('url') ?? 'a site';
document.getElementById('site')!.textContent = query.get('site') ?? 'it';
document.getElementById('settings')!.addEventListener('click', (event) => {
  event.preventDefault();
  void chrome.runtime.openOptionsPage();
});
