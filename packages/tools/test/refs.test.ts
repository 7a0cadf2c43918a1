import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRef, refPrefix } from '../src/index.js';
import { call, callError, refOf, useHarness } from './harness.js';

describe('parseRef (the one ref parser)', () => {
  it('reads element, frame and context refs, and leaves CSS selectors alone', () => {
    expect(parseRef('e12')).toEqual({ context: undefined, frame: undefined, element: 'e12' });
    expect(parseRef('f2e3')).toEqual({ context: undefined, frame: 2, element: 'e3' });
    expect(parseRef('uk:f1e7')).toEqual({ context: 'uk', frame: 1, element: 'e7' });
    for (const selector of ['#e12', 'button', 'e', 'f1', 'a:hover', 'uk:', ':e2', 'e12 ', 'li:nth-child(2)']) expect(parseRef(selector)).toBeUndefined();
  });

  it('reads back every ref it writes', () => {
    fc.assert(
      fc.property(
        fc.option(fc.stringMatching(/^[A-Za-z0-9_-]{1,32}$/), { nil: undefined }),
        fc.option(fc.nat(999), { nil: undefined }),
        fc.nat(1e6),
        (context, frame, n) => {
          expect(parseRef(`${refPrefix(context, frame)}e${n}`)).toEqual({ context, frame, element: `e${n}` });
        },
      ),
    );
  });
});

const h = useHarness();

describe('refs of a named context', () => {
  it('carry the context’s name in snapshots, work there, and are refused in another context', async () => {
    const uk = await h.session({}, { refContext: 'uk' });
    const snap = await call(uk, 'browser_navigate', { url: h.server.url('/frames.html') });
    expect(snap).toMatch(/button "Inner button" \[ref=uk:f1e\d+\]/);
    const button = refOf(snap, 'button "Shadow button"');
    expect(button).toMatch(/^uk:e\d+$/);
    await call(uk, 'browser_click', { target: button });
    await call(uk, 'browser_click', { target: refOf(snap, 'button "Inner button"') });

    const other = await h.session();
    await call(other, 'browser_navigate', { url: h.server.url('/frames.html') });
    expect(await callError(other, 'browser_click', { target: button })).toContain(
      `ref ${button} belongs to context "uk"; switch to it with browser_context_switch first`,
    );
    expect(await callError(uk, 'browser_click', { target: 'e1' })).toContain('ref e1 belongs to the default context');
  });
});
