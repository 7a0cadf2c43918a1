import fc from 'fast-check';
import { expect, it } from 'vitest';
import { renderChanges, snapshotChanges } from '../src/tab/snapshot-changes.js';

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
  expect(text).toContain('Gone: `- listbox [ref=e5]:`.');
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
  const withPopup = `${page}\n${popup}`;
  expect(snapshotChanges(withPopup, withPopup.replace(/cell "(\d+)"/g, (_, n) => `cell "${Number(n) + 3}"`))).toBeUndefined();
});

it('never leaves out a line that changed, and every line it shows is on the page now, in the page’s order', () => {
  const line = fc.tuple(fc.integer({ min: 0, max: 3 }), fc.constantFrom('listitem', 'button', 'text', 'row'), fc.integer({ min: 1, max: 40 }));
  const doc = fc.array(line, { minLength: 1, maxLength: 60 }).map((ls) => {
    // Indents that step in by one level at most, as a tree's lines do.
    let depth = 0;
    return ls.map(([d, role, n]) => {
      depth = Math.min(d, depth + 1);
      return `${'  '.repeat(depth)}- ${role} "${n}" [ref=e${n}]`;
    });
  });
  fc.assert(
    fc.property(doc, doc, (a, b) => {
      const changes = snapshotChanges(a.join('\n'), b.join('\n'));
      if (!changes) return;
      const shown = changes.lines ? changes.lines.split('\n') : [];
      const old = new Set(a);
      for (const l of b) if (!old.has(l)) expect(shown).toContain(l);
      let at = -1;
      for (const l of shown) {
        const i = b.indexOf(l, at + 1);
        expect(i).toBeGreaterThan(at);
        at = i;
      }
    }),
  );
});
