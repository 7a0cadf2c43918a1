/** Roles: the implicit ARIA role of an element, or the role it is given. Common HTML/ARIA cases. */

const SECTIONING = 'article, aside, main, nav, section';

/** Roles whose name comes from their content when nothing else names them. */
export const NAME_FROM_CONTENT = new Set([
  'button',
  'link',
  'heading',
  'cell',
  'gridcell',
  'columnheader',
  'rowheader',
  'option',
  'tab',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'treeitem',
  'tooltip',
  'switch',
  'checkbox',
  'radio',
  'row',
]);

export function implicitRole(el: Element): string {
  const tag = el.tagName;
  switch (tag) {
    case 'A':
    case 'AREA':
      return el.hasAttribute('href') ? 'link' : 'generic';
    // SVG's link (its tag name keeps its case), with href or the older xlink:href (SVG-AAM).
    case 'a':
      return el.hasAttribute('href') || el.hasAttribute('xlink:href') ? 'link' : 'generic';
    case 'BUTTON':
      return 'button';
    case 'INPUT': {
      const type = ((el as HTMLInputElement).type || 'text').toLowerCase();
      switch (type) {
        case 'button':
        case 'submit':
        case 'reset':
        case 'image':
          return 'button';
        case 'checkbox':
          return 'checkbox';
        case 'radio':
          return 'radio';
        case 'range':
          return 'slider';
        case 'number':
          return 'spinbutton';
        case 'search':
          return el.hasAttribute('list') ? 'combobox' : 'searchbox';
        case 'hidden':
          return 'none';
        case 'file':
          return 'button';
        default:
          return el.hasAttribute('list') ? 'combobox' : 'textbox';
      }
    }
    case 'TEXTAREA':
      return 'textbox';
    case 'SELECT': {
      const s = el as HTMLSelectElement;
      return s.multiple || s.size > 1 ? 'listbox' : 'combobox';
    }
    case 'OPTION':
      return 'option';
    case 'H1':
    case 'H2':
    case 'H3':
    case 'H4':
    case 'H5':
    case 'H6':
      return 'heading';
    case 'IMG':
      return el.getAttribute('alt') === '' ? 'presentation' : 'img';
    case 'UL':
    case 'OL':
    case 'MENU':
      return 'list';
    case 'LI':
      return 'listitem';
    case 'TABLE':
      return 'table';
    case 'TR':
      return 'row';
    case 'TD':
      return 'cell';
    case 'TH':
      return (el as HTMLTableCellElement).scope === 'row' ? 'rowheader' : 'columnheader';
    case 'NAV':
      return 'navigation';
    case 'MAIN':
      return 'main';
    case 'HEADER':
      return el.parentElement?.closest(SECTIONING) ? 'generic' : 'banner';
    case 'FOOTER':
      return el.parentElement?.closest(SECTIONING) ? 'generic' : 'contentinfo';
    case 'ASIDE':
      return 'complementary';
    case 'ARTICLE':
      return 'article';
    case 'SECTION':
      return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') ? 'region' : 'generic';
    case 'FORM':
      return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') || el.hasAttribute('name') ? 'form' : 'generic';
    case 'DIALOG':
      return 'dialog';
    case 'P':
      return 'paragraph';
    case 'BLOCKQUOTE':
      return 'blockquote';
    case 'FIELDSET':
    case 'DETAILS':
    case 'OPTGROUP':
      return 'group';
    case 'SUMMARY':
      return 'button';
    case 'PROGRESS':
      return 'progressbar';
    case 'METER':
      return 'meter';
    case 'IFRAME':
    case 'FRAME':
      return 'iframe';
    case 'HR':
      return 'separator';
    case 'CODE':
      return 'code';
    case 'PRE':
      return 'generic';
    case 'CAPTION':
      return 'caption';
    case 'LABEL':
    case 'LEGEND':
      return 'generic';
    default:
      if ((el as HTMLElement).isContentEditable && !el.parentElement?.isContentEditable) return 'textbox';
      return 'generic';
  }
}

/** The element's role: its first `role` token (`none` reads as presentation), or its implicit role. `bare`: no attributes. */
export function roleOf(el: Element, bare: boolean): string {
  const explicit = bare ? null : el.getAttribute('role');
  if (explicit) {
    const first = explicit.trim().split(/\s+/)[0];
    if (first) return first === 'none' ? 'presentation' : first;
  }
  return implicitRole(el);
}
