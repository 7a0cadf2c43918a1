/**
 * The page an agent's tab shows instead of a site the person put off limits: which address, and which entry of their
 * list kept it out. Written into an empty page with no origin (Attachments.show), not one of the extension's pages:
 * an agent acts in that tab next (it reads why, and navigates on), and in an extension page it would act with the
 * extension's privileges (its storage, the person's tabs). So the page has no script and no link into the extension;
 * the person opens the settings from the toolbar.
 */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The blocked page for `url` (its query and fragment left out: they may hold tokens), kept out by `site`. */
export function blockedPageHtml(url: string, site: string): string {
  const address = url.split(/[?#]/)[0] ?? url;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Blocked by browsermcp</title>
<style>body{font:14px/1.5 system-ui,sans-serif;color:#202124;background:#fff}main{max-width:560px;margin:48px auto;padding:0 16px}h1{font-size:18px}code{word-break:break-all;background:#f1f3f4;padding:1px 4px;border-radius:3px}.muted{color:#5f6368}</style></head>
<body><main><h1>An agent's tab was kept from a site you put off limits</h1>
<p>A page in an agent's tab tried to open <code>${escapeHtml(address)}</code>.</p>
<p>You put <strong>${escapeHtml(site)}</strong> on the list of sites agents may never open, so nothing from it was loaded here. The agent was told why.</p>
<p class="muted">To change the list: the browsermcp button in the toolbar (or the puzzle menu) → ⋮ → Options.</p></main></body></html>`;
}
