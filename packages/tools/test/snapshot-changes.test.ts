import fc from 'fast-check';
import { expect, it } from 'vitest';
import { changesSinceBeforeLast, renderChanges, snapshotChanges } from '../src/tab/snapshot-changes.js';

// What an action's answer shows of the page: the changed lines under the elements they sit in, and what is gone.
const before = [
  '- main [ref=e1]:',
  '  - heading "Settings" [level=1] [ref=e2]',
  '  - list [ref=e3]:',
  '    - listitem: one',
  '    - listitem: two',
  '  - switch "Wi-Fi" [ref=e4]',
  '  - paragraph: Wi-Fi off',
  '- listbox [ref=e5]:',
  '  - option "A" [ref=e6]',
  '  - option "B" [ref=e7]',
  '- contentinfo [ref=e8]: footer',
].join('\n');

it('gives each changed line under the lines of the elements it sits in, and names what is gone', () => {
  const after = before
    .replace('switch "Wi-Fi" [ref=e4]', 'switch "Wi-Fi" [checked] [ref=e4]')
    .replace('Wi-Fi off', 'Wi-Fi on')
    .replace('- listbox [ref=e5]:\n  - option "A" [ref=e6]\n  - option "B" [ref=e7]\n', '');
  const changes = snapshotChanges(before, after)!;
  expect(changes.lines).toBe(['- main [ref=e1]:', '  - switch "Wi-Fi" [checked] [ref=e4]', '  - paragraph: Wi-Fi on'].join('\n'));
  // The listbox is gone, and its options with it: the outermost is named.
  expect(changes.gone).toEqual(['- listbox [ref=e5]:']);
  const text = renderChanges(changes);
  expect(text).toContain('### Snapshot changes');
  expect(text).toContain('Gone: listbox [ref=e5].');
});

it('puts a changed line under the lines that say where it is, not under a bare `- main:` or `- paragraph:`', () => {
  const page = [
    '- main:',
    '  - paragraph:',
    '    - switch "Wi-Fi" [ref=e4]',
    '  - paragraph: Wi-Fi off',
    '  - list "Rooms":',
    ...Array.from({ length: 6 }, (_, i) => `    - listitem: Room ${i}`),
  ].join('\n');
  const after = page.replace('[ref=e4]', '[checked] [ref=e4]').replace('Wi-Fi off', 'Wi-Fi on').replace('Room 5', 'Room 5 (booked)');
  expect(snapshotChanges(page, after)!.lines).toBe(
    ['- switch "Wi-Fi" [checked] [ref=e4]', '- paragraph: Wi-Fi on', '- list "Rooms":', '  - listitem: Room 5 (booked)'].join('\n'),
  );
});

it('names a gone element that sat under one that stays, as well as the outermost of what went together', () => {
  const rest = Array.from({ length: 12 }, (_, i) => `- button "Save draft number ${i}" [ref=e${i + 10}]`);
  const page = ['- list [ref=e1]:', '  - listitem "A" [ref=e2]', '  - group "Picked" [ref=e3]:', '    - listitem "C" [ref=e4]', ...rest].join('\n');
  const after = ['- list [ref=e1]:', '  - group "Picked" [active] [ref=e3]', ...rest].join('\n');
  expect(snapshotChanges(page, after)?.gone).toEqual(['- listitem "A" [ref=e2]', '- listitem "C" [ref=e4]']);
  // What sits under a gone element goes with it: named once, by the outermost.
  expect(snapshotChanges(page, after.replace('  - group "Picked" [active] [ref=e3]\n', ''))?.gone).toEqual([
    '- listitem "A" [ref=e2]',
    '- group "Picked" [ref=e3]:',
  ]);
});

it('says the page is as it was when nothing changed, and gives up for changes nearly as long as the page', () => {
  expect(renderChanges(snapshotChanges(before, before)!)).toBe('### Snapshot\nUnchanged since the last snapshot.');
  const replaced = before.replace(/ref=e/g, 'ref=x');
  expect(snapshotChanges(before, replaced)).toBeUndefined();
});

it('sends a popup that opens as changes even when it is most of the page, but not a page mostly rewritten', () => {
  const rooms = Array.from({ length: 8 }, (_, i) => `- row "Room ${i + 1}, two beds, breakfast included" [ref=e${i + 50}]`);
  const page = ['- heading "Book" [ref=e1]', '- textbox "Arrival" [ref=e2]', ...rooms].join('\n');
  const cells = Array.from({ length: 30 }, (_, i) => `    - cell "${i + 1}" [ref=e${i + 10}]`);
  const popup = ['- grid [ref=e3]:', '  - row:', ...cells].join('\n');
  // The field marked active and a calendar added: all the agent saw before still holds.
  const after = `${page.replace('[ref=e2]', '[active] [ref=e2]')}\n${popup}`;
  const opened = snapshotChanges(page, after)!;
  // Past the share a page that changes gets (0.6), within the one a page only added to gets.
  expect(popup.length / after.length).toBeGreaterThan(0.6);
  expect(opened.lines).toBe(`- textbox "Arrival" [active] [ref=e2]\n${popup}`);
  expect(opened.gone).toEqual([]);
  // The same calendar turned to another month (its cells reused, their words new): the whole page goes instead.
  const withPopup = `${page.split('\n').slice(0, 2).join('\n')}\n${popup}`;
  expect(
    snapshotChanges(
      withPopup,
      withPopup.replace(/cell "(\d+)"/g, (_, n) => `cell "${Number(n) + 3}"`),
    ),
  ).toBeUndefined();
});

it('gives the changes since the snapshot before the last where the last was the page behind a popup, naming the popup gone', () => {
  // A listbox opens and the library hides the rest of the page from assistive technology: that answer was the page.
  const behind = ['- main [ref=e1]:', '  - switch "Wi-Fi" [ref=e4]', '- listbox [ref=e9]:', '  - option "A" [ref=e10]', '  - option "B" [ref=e11]'].join('\n');
  // The option chosen: the page is back, one line changed from what the agent saw before the popup.
  const back = before.replace('Wi-Fi off', 'Wi-Fi on, option B');
  expect(snapshotChanges(behind, back)).toBeUndefined();
  const changes = changesSinceBeforeLast(before, behind, back)!;
  expect(changes.since).toBe('before-last');
  expect(changes.lines).toBe(['- main [ref=e1]:', '  - paragraph: Wi-Fi on, option B'].join('\n'));
  expect(changes.gone).toEqual(['- listbox [ref=e9]:']);
  expect(renderChanges(changes)).toMatch(/^### Snapshot changes since the snapshot before the last one \(the rest as shown there\)\n```yaml\n/);
  // Named without the states it had, and without mistaking brackets in its name for them.
  expect(renderChanges({ ...changes, gone: ['- listbox "Sizes [cm]" [active] [ref=e9]:'] })).toContain('Gone: listbox "Sizes [cm]" [ref=e9].');
});

it('never leaves out a line that changed, and every line it shows is on the page now, in the page’s order, under the lines it sits in', () => {
  // Some lines name their element (a ref), some do not (`- group:`, left out as a mere ancestor).
  const line = fc.tuple(fc.integer({ min: 0, max: 3 }), fc.constantFrom('listitem', 'button', 'text', 'row', 'group'), fc.integer({ min: 1, max: 40 }));
  const doc = fc.array(line, { minLength: 1, maxLength: 60 }).map((ls) => {
    // Indents that step in by one level at most, as a tree's lines do.
    let depth = 0;
    return ls.map(([d, role, n]) => {
      depth = Math.min(d, depth + 1);
      return role === 'group' ? `${'  '.repeat(depth)}- group:` : `${'  '.repeat(depth)}- ${role} "${n}" [ref=e${n}]`;
    });
  });
  const indent = (l: string) => l.length - l.trimStart().length;
  fc.assert(
    fc.property(doc, doc, (a, b) => {
      const changes = snapshotChanges(a.join('\n'), b.join('\n'));
      if (!changes) return;
      const shown = changes.lines ? changes.lines.split('\n') : [];
      const bare = shown.map((l) => l.trimStart());
      const old = new Set(a);
      for (const l of b) if (!old.has(l)) expect(bare).toContain(l.trimStart());
      let at = -1;
      for (const [k, l] of bare.entries()) {
        const i = b.findIndex((x, j) => j > at && x.trimStart() === l);
        expect(i).toBeGreaterThan(at);
        // One level under the shown line it sits in, or at the top: never deeper than the page has it.
        expect(indent(shown[k]!)).toBeLessThanOrEqual(indent(b[i]!));
        if (k > 0) expect(indent(shown[k]!)).toBeLessThanOrEqual(indent(shown[k - 1]!) + 2);
        at = i;
      }
    }),
  );
});
