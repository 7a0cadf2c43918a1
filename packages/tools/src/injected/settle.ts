/** Waiting in the page: for the DOM to settle after an action, for a document to be parsed. */

/** Properties whose animation shows or hides what they animate (a popup fading or sliding), not just restyles it. */
const REVEALING = new Set(['opacity', 'visibility', 'display', 'transform', 'translate', 'scale', 'clip-path', 'height', 'max-height']);

/** The animated properties of `animation`: a transition's one, or the properties its keyframes set. */
function propertiesOf(animation: Animation): string[] {
  if (animation instanceof CSSTransition) return [animation.transitionProperty];
  const effect = animation.effect;
  if (!(effect instanceof KeyframeEffect)) return [];
  const names = new Set<string>();
  for (const frame of effect.getKeyframes()) for (const key of Object.keys(frame)) names.add(key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`));
  return [...names];
}

/**
 * Whether `animation` may change what a snapshot shows: it shows or hides an element that holds words or controls. A
 * button's colour fading, or a press's ripple (an empty span growing), is not waited for: it changes nothing read.
 */
function changesWhatShows(animation: Animation): boolean {
  const effect = animation.effect;
  if (!(effect instanceof KeyframeEffect) || !effect.target || effect.pseudoElement) return false;
  if (!propertiesOf(animation).some((p) => REVEALING.has(p))) return false;
  const target = effect.target;
  return (target.textContent ?? '').trim() !== '' || target.querySelector('input, select, textarea, button, [role]') !== null;
}

/**
 * How long the page's finite animations and transitions that show or hide content still run (ms), 0 when none does.
 * A popup that closes fades out for a few hundred ms with no DOM change: read then, it still shows, half gone (its
 * items no longer take clicks), where a person a moment later sees it closed. A running one is waited for again while
 * it moves (a loaded machine draws its frames late, so it ends after the time it said); one that does not move (a
 * hidden tab draws no frames) or is paused (rc-motion pauses a leave until a frame later) is waited for once, so it
 * costs at most its own length. Endless ones (a spinner) are never waited for. `seen`: each one's time when last read.
 */
function animationsLeftMs(seen: WeakMap<Animation, number>): number {
  let left = 0;
  for (const animation of document.getAnimations()) {
    const state = animation.playState;
    if ((state !== 'running' && state !== 'paused') || animation.playbackRate <= 0) continue;
    const at = animation.currentTime;
    if (typeof at !== 'number') continue;
    const before = seen.get(animation);
    if (before !== undefined && (state === 'paused' || at <= before)) continue;
    if (!changesWhatShows(animation)) continue;
    const end = animation.effect?.getComputedTiming().endTime;
    if (typeof end !== 'number' || !Number.isFinite(end)) continue;
    seen.set(animation, at);
    left = Math.max(left, (end - at) / animation.playbackRate);
  }
  return left;
}

/** How many quiet windows stand in for the two frames a settled page has drawn, where no frames come. */
const FRAMELESS_QUIET = 4;

/**
 * One frame for the page to answer, then wait for a short quiet window if the DOM is changing, and for the finite
 * animations that show or hide content to end (a popup's fade). When the URL changed (an SPA route), the window starts
 * at once: routers often render a little after pushState. Everything within `capMs`.
 */
export function settleDom(urlBefore: string, quietMs: number, capMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const start = performance.now();
    let last = location.href !== urlBefore ? start : -Infinity;
    // Until when the animations seen are waited for (see animationsLeftMs).
    let animationsUntil = -Infinity;
    const seen = new WeakMap<Animation, number>();
    // Frames drawn since the last change: libraries step a popup's leave through classes a frame apart (rc-motion puts
    // the animation on only at the second), and a loaded machine can take longer than the quiet window for a frame.
    let frames = 0;
    let framesAtLast = 0;
    let done = false;
    const frame = () => {
      frames++;
      if (!done) requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
    const observer = new MutationObserver(() => {
      last = performance.now();
      framesAtLast = frames;
    });
    observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    const check = () => {
      const now = performance.now();
      if (last === -Infinity && location.href !== urlBefore) last = now;
      if (now - start >= capMs) return finish();
      if (now - last < quietMs) return setTimeout(check, Math.max(5, quietMs - (now - last)));
      // Two frames after the last change (or after the action, whose changes may all precede this wait), unless none
      // come (a hidden tab draws none): then the longer quiet stands in.
      if (frames - framesAtLast < 2 && now - Math.max(last, start) < quietMs * FRAMELESS_QUIET) return setTimeout(check, 10);
      if (now < animationsUntil) return setTimeout(check, Math.max(5, animationsUntil - now + 1));
      if (animationsUntil !== -Infinity) {
        // An animation's end changes the page a frame later (the popup it faded is then removed): one more quiet window.
        animationsUntil = -Infinity;
        last = now;
        framesAtLast = frames;
        return setTimeout(check, quietMs);
      }
      const left = animationsLeftMs(seen);
      if (left <= 0) return finish();
      animationsUntil = now + left;
      setTimeout(check, Math.max(5, Math.min(left + 1, capMs - (now - start))));
    };
    const finish = () => {
      done = true;
      observer.disconnect();
      resolve();
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
