import type { FileChooser, HTTPRequest, Page } from 'puppeteer-core';
import { cdp } from '../engine/cdp.js';
import { ToolError } from '../engine/errors.js';
import { setInputFiles } from '../injected/files.js';
import { HeldLeave, LEAVE_PROMPT_BINDING, type DialogLike } from './leave-prompt.js';
import type { UploadFile } from '../engine/files.js';

export type ModalState =
  | { kind: 'dialog'; dialog: DialogLike; description: string }
  | {
      kind: 'fileChooser';
      chooser: FileChooser;
      /** The file input that opened it, as CDP names it: uploads of contents (not paths) set its files in the page. */
      backendNodeId: number | undefined;
      description: string;
    };

/**
 * What blocks a tab's page: dialogs and file choosers, caught as they open (a standing file-chooser interception, so
 * no native dialog ever blocks), held until a tool handles them; and the ways a rescue or a navigation gets past them.
 */
export class TabModals {
  private modals: ModalState[] = [];
  private listeners = new Set<() => void>();
  /** Set while a rescue dismisses dialogs as they open (see dismissingDialogs). */
  private dismissing: { arrived: number } | undefined;
  /** Navigations away from the page in progress (see leavingPage). */
  private leaving = 0;
  private chooserAbort = new AbortController();
  private lastChooserNode: number | undefined;
  /** The page asked "Leave site?" at its last beforeunload, without Chrome's dialog (see leave-prompt.ts). */
  private leaveAsked = false;

  constructor(private readonly page: Page) {
    // Puppeteer's FileChooser keeps its input to itself; the same CDP event tells which input it is.
    cdp(page).on('Page.fileChooserOpened', (event) => {
      this.lastChooserNode = event.backendNodeId;
    });
    page.on('dialog', (dialog) => this.onDialog(dialog));
    cdp(page).on('Runtime.bindingCalled', (event) => {
      if (event.name === LEAVE_PROMPT_BINDING) this.leaveAsked = event.payload === 'asked';
    });
    page.on('close', () => this.chooserAbort.abort());
    // A chooser belongs to its document: a new one (not a route change within it) leaves it behind, and the next
    // chooser must find the waiter armed again.
    cdp(page).on('Page.frameNavigated', (event) => {
      if (event.frame.parentId !== undefined) return;
      this.dropFileChoosers();
      this.leaveAsked = false;
    });
    this.armFileChooser();
  }

  private onDialog(dialog: DialogLike): void {
    // Leaving the page: "Leave site?" is answered Leave, as a person who closes the tab does.
    if (dialog.type() === 'beforeunload' && this.leaving > 0) {
      void dialog.accept().catch(() => undefined);
      return;
    }
    if (this.dismissing) {
      this.dismissing.arrived++;
      void dialog.dismiss().catch(() => undefined);
      return;
    }
    this.add({
      kind: 'dialog',
      dialog,
      description: `["${dialog.type()}" dialog with message "${dialog.message()}"]: can be handled by the "browser_handle_dialog" tool`,
    });
  }

  /**
   * A navigation of the main frame that the agent did not ask for (a link, a script): when its page asked "Leave
   * site?" without Chrome's own dialog, it is held as that dialog. Returns whether the request was taken (held, or
   * dismissed by a rescue under way); otherwise the caller lets it go.
   */
  holdIfAsked(request: HTTPRequest): boolean {
    const asked = this.leaveAsked;
    this.leaveAsked = false;
    if (!asked || this.leaving > 0) return false;
    this.onDialog(new HeldLeave(request));
    return true;
  }

  private dropFileChoosers(): void {
    const stale = this.modals.filter((m) => m.kind === 'fileChooser');
    if (!stale.length) return;
    this.modals = this.modals.filter((m) => m.kind !== 'fileChooser');
    for (const state of stale) void state.chooser.cancel().catch(() => undefined);
    this.armFileChooser();
  }

  /** A standing waiter makes every file chooser ours, so no native dialog ever blocks the page. */
  armFileChooser(): void {
    if (this.page.isClosed()) return;
    this.page
      .waitForFileChooser({ timeout: 0, signal: this.chooserAbort.signal })
      .then((chooser) => {
        this.add({
          kind: 'fileChooser',
          chooser,
          backendNodeId: this.lastChooserNode,
          description: `[File chooser${chooser.isMultiple() ? ' (multiple files)' : ''}]: can be handled by the "browser_file_upload" tool`,
        });
      })
      .catch(() => {
        /* aborted on close */
      });
  }

  /**
   * Gives the chooser its files: paths through Chromium (it reads them), contents as File objects set on the input
   * in the page, with the input and change events a person's choice fires.
   */
  async acceptChooser(state: Extract<ModalState, { kind: 'fileChooser' }>, files: readonly UploadFile[]): Promise<void> {
    const paths = files.flatMap((f) => ('path' in f ? [f.path] : []));
    if (paths.length === files.length) return state.chooser.accept(paths);
    if (paths.length) throw new ToolError('This host mixes file paths and contents in one upload; upload them in two calls.');
    if (state.backendNodeId === undefined) throw new ToolError('The file input that opened this chooser cannot be found; click it again.');
    const client = cdp(this.page);
    const { object } = await client.send('DOM.resolveNode', { backendNodeId: state.backendNodeId });
    if (!object.objectId) throw new ToolError('The file input that opened this chooser is gone from the page; click it again.');
    try {
      await client.send('Runtime.callFunctionOn', {
        objectId: object.objectId,
        // Sent on its own (self-contained): CDP names the chooser's input only by node id, which no handle reaches.
        functionDeclaration: `function (files) { return (${setInputFiles.toString()})(this, files); }`,
        arguments: [{ value: files }],
        returnByValue: true,
      });
    } finally {
      await client.send('Runtime.releaseObject', { objectId: object.objectId }).catch(() => undefined);
    }
  }

  /**
   * Dismisses every dialog, open or opening while `work` runs (a page that raises alert after alert must not hold a
   * rescue hostage); returns `work`'s value, how many dialogs were open and how many more opened meanwhile. `work`
   * can ask how many have opened so far.
   */
  async dismissingDialogs<T>(work: (arrived: () => number) => Promise<T>): Promise<{ value: T; open: number; arrived: number }> {
    const counter = { arrived: 0 };
    this.dismissing = counter;
    let open = 0;
    try {
      for (let state = this.take('dialog'); state; state = this.take('dialog')) {
        open++;
        await state.dialog.dismiss().catch(() => undefined);
      }
      return { value: await work(() => counter.arrived), open, arrived: counter.arrived };
    } finally {
      this.dismissing = undefined;
    }
  }

  /** Runs a navigation away from the page: a beforeunload "Leave site?" it raises is accepted. */
  async leavingPage<T>(work: () => Promise<T>): Promise<T> {
    this.leaving++;
    try {
      return await work();
    } finally {
      this.leaving--;
    }
  }

  private add(state: ModalState): void {
    this.modals.push(state);
    for (const listener of this.listeners) listener();
  }

  states(): readonly ModalState[] {
    return this.modals;
  }

  take<K extends ModalState['kind']>(kind: K): Extract<ModalState, { kind: K }> | undefined {
    const i = this.modals.findIndex((m) => m.kind === kind);
    if (i < 0) return undefined;
    const [state] = this.modals.splice(i, 1);
    return state as Extract<ModalState, { kind: K }>;
  }

  /** Puts back a modal a tool took but could not handle (e.g. upload paths refused), so the model can retry. */
  restore(state: ModalState): void {
    this.modals.unshift(state);
  }

  /** Resolves when a dialog or file chooser opens; used to stop waiting on an action the modal blocks. */
  opened(): { promise: Promise<'modal'>; dispose: () => void } {
    let listener: () => void = () => {};
    const promise = new Promise<'modal'>((resolve) => {
      listener = () => resolve('modal');
      this.listeners.add(listener);
    });
    return { promise, dispose: () => this.listeners.delete(listener) };
  }

  /**
   * Runs page work that a dialog may block (an evaluate whose code calls alert): 'modal' as soon as one opens,
   * since the renderer answers nothing until it is handled. The work's late outcome is dropped.
   */
  async unlessModal<T>(work: () => Promise<T>): Promise<{ value: T } | 'modal'> {
    const modal = this.opened();
    try {
      const running = work().then((value) => ({ value }));
      running.catch(() => undefined);
      return await Promise.race([running, modal.promise]);
    } finally {
      modal.dispose();
    }
  }
}
