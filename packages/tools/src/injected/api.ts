import { focusForTyping, isChecked, prepareAction, selectOptions, setRange, sliderValue } from './actions.js';
import { choiceRefused, expectChoice } from './choice.js';
import { dropOn } from './files.js';
import { frameContentOffset, isHidden, scrollToCenter, viewportSize } from './frame.js';
import { hideHighlight, highlight } from './highlight.js';
import { inputReceived } from './input.js';
import { listenerMarksStale, markPressed } from './listeners.js';
import { maskSecretFields, unmaskSecretFields } from './mask.js';
import { accessibleName, locatorSpecFor, valueToVerify } from './locator.js';
import { parcelPart, parkedCount } from './parcel.js';
import { askPerson } from './person.js';
import { elementForRef, refFor } from './refs.js';
import { settleDom, whenParsed } from './settle.js';
import { readableText, waitForText } from './text.js';
import { walkPage, walkStats } from './walk.js';

/**
 * Everything the tools run inside a page, by name: bundled into one script (see scripts/bundle-injected.mjs),
 * installed once per document and frame, and called through `inPage` (src/in-page.ts).
 */
export const injectedApi = {
  walkPage,
  walkStats,
  parcelPart,
  parkedCount,
  refOfElement: (el: Element, seed: number): string => refFor(el, seed),
  elementForRef,
  prepareAction,
  focusForTyping,
  selectOptions,
  setRange,
  sliderValue,
  isChecked,
  readableText,
  waitForText,
  settleDom,
  whenParsed,
  frameContentOffset,
  isHidden,
  viewportSize,
  scrollToCenter,
  askPerson,
  dropOn,
  highlight,
  hideHighlight,
  accessibleName,
  locatorSpecFor,
  valueToVerify,
  inputReceived,
  expectChoice,
  listenerMarksStale,
  markPressed,
  choiceRefused,
  maskSecretFields,
  unmaskSecretFields,
};

export type InjectedApi = typeof injectedApi;
