/** Waiting in the page: for the DOM to settle after an action, for a document to be parsed. */

/**
 * One frame for the page to answer, then wait for a short quiet window if the DOM is changing. When the
 * URL changed (an SPA route), the window starts at once: routers often render a little after pushState.
 */
export function settleDom(urlBefore: string, quietMs: number, capMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const start = performance.now();
    let last = location.href !== urlBefore ? start : -Infinity;
    const observer = new MutationObserver(() => {
      last = performance.now();
    });
    observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    const check = () => {
      const now = performance.now();
      if (last === -Infinity && location.href !== urlBefore) last = now;
      if (now - last >= quietMs || now - start >= capMs) {
        observer.disconnect();
        resolve();
      } else {
        setTimeout(check, Math.max(5, quietMs - (now - last)));
      }
    };
    // A frame lets the page render what the action caused; hidden tabs get no frames, so a timer stands in.
    let kicked = false;
    const kick = () => {
      if (kicked) return;
      kicked = true;
      setTimeout(check, 0);
    };
    requestAnimationFrame(kick);
    setTimeout(kick, 50);
  });
}

/** Resolves once the document is parsed (readyState past "loading"), or after `capMs`, whichever comes first. */
export function whenParsed(capMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    if (document.readyState !== 'loading') return resolve();
    const finish = () => {
      clearTimeout(timer);
      document.removeEventListener('readystatechange', onChange);
      resolve();
    };
    const onChange = () => {
      if (document.readyState !== 'loading') finish();
    };
    const timer = setTimeout(finish, capMs);
    document.addEventListener('readystatechange', onChange);
  });
}
