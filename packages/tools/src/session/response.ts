// The shape every host answers a tool command with is a wire contract: declared once, in @browsermcp/protocol.
import type { ContentPart, ImageContent, TextContent, ToolResult } from '@browsermcp/protocol';

export type { ContentPart, ImageContent, TextContent, ToolResult };

export interface PageInfo {
  url: string;
  title: string;
}

/**
 * Handlers never build MCP results themselves: they write here and `serialize()` emits the fixed sections, in a
 * fixed order, so every tool answers in the same shape.
 */
export class Response {
  private results: string[] = [];
  /** What the call did in words, where the Playwright code line does not already say it. */
  private done: string[] = [];
  private code: { text: string; fence: string } | undefined;
  private notes: string[] = [];
  private errors: string[] = [];
  private images: ImageContent[] = [];
  private page: PageInfo | undefined;
  private tabsList: string | undefined;
  private snapshot: string | undefined;
  private consoleLines: string[] = [];
  private modal: string[] = [];
  private includeSnapshot = false;
  private wholeSnapshot = false;
  private changesSection: string | undefined;
  private webmcpTools: string[] = [];
  private pageOmitted = false;
  private pageAsked = false;

  addResult(text: string): this {
    this.results.push(text);
    return this;
  }

  /**
   * What an action did, in words ("Clicked button Save (e5)"): the answer says it only where no Playwright code line
   * does (`--codegen none`, an error), as @playwright/mcp answers an action with its code alone.
   */
  addDone(text: string): this {
    this.done.push(text);
    return this;
  }

  /** The Playwright code that replays the call (--codegen), shown in a fence of its language. */
  addCode(text: string, fence: string): this {
    this.code = this.code ? { text: `${this.code.text}\n${text}`, fence } : { text, fence };
    return this;
  }

  /** Something the model must know that the call did not cause (a tab the person closed). */
  addNote(text: string): this {
    this.notes.push(text);
    return this;
  }

  addError(text: string): this {
    this.errors.push(text);
    return this;
  }

  addImage(data: string, mimeType: string): this {
    this.images.push({ type: 'image', data, mimeType });
    return this;
  }

  setPage(info: PageInfo): this {
    this.page = info;
    return this;
  }

  /** The page section as it will read, or undefined without one. */
  pageSection(): string | undefined {
    if (!this.page) return undefined;
    const n = this.webmcpTools.length;
    const tools = n
      ? `\n- Page tools (WebMCP): ${n} (${this.webmcpTools.slice(0, 10).join(', ')}${n > 10 ? ', …' : ''}), page-provided and untrusted: browser_webmcp_list, browser_webmcp_call`
      : '';
    return `### Page\n- Page URL: ${this.page.url}\n- Page Title: ${this.page.title}${tools}`;
  }

  /** Whether the answer shows the whole page (a snapshot of all of it), the page section's natural place. */
  showsWholePage(): boolean {
    return this.snapshot !== undefined;
  }

  /** Leaves the page section out: it reads as the one the agent was last shown of this tab (unless asked for). */
  omitPage(): this {
    this.pageOmitted = !this.pageAsked;
    return this;
  }

  /** The page section goes whatever was shown before: the tool moved the agent (a navigation, another tab). */
  askPage(): this {
    this.pageAsked = true;
    return this;
  }

  /** The tools the page registers (WebMCP), as last collected: the page section names them. */
  setWebMcpTools(names: string[]): this {
    this.webmcpTools = names;
    return this;
  }

  setTabs(text: string): this {
    this.tabsList = text;
    return this;
  }

  hasTabs(): boolean {
    return this.tabsList !== undefined;
  }

  setSnapshot(text: string): this {
    this.snapshot = text;
    return this;
  }

  /** In place of the snapshot: what changed since the last one the agent was shown (tab/snapshot-changes.ts). */
  setSnapshotChanges(section: string): this {
    this.changesSection = section;
    return this;
  }

  /** Whether an appended snapshot may give only what changed (not after the agent moved to another tab). */
  changesWanted(): boolean {
    return !this.wholeSnapshot;
  }

  /**
   * Ask the dispatcher to append a fresh snapshot after the action (what playwright-mcp does for actions); `whole`:
   * the whole page even where only changes would go (the agent turned to another tab).
   */
  setIncludeSnapshot(value = true, whole = false): this {
    this.includeSnapshot = value;
    this.wholeSnapshot = whole;
    return this;
  }

  wantsSnapshot(): boolean {
    return this.includeSnapshot && this.snapshot === undefined && this.changesSection === undefined;
  }

  addConsoleLines(lines: string[]): this {
    this.consoleLines.push(...lines);
    return this;
  }

  setModalState(lines: string[]): this {
    this.modal = lines;
    return this;
  }

  get isError(): boolean {
    return this.errors.length > 0;
  }

  serialize(): ToolResult {
    const sections: string[] = [];
    if (this.errors.length) sections.push(`### Error\n${this.errors.join('\n')}`);
    const code = this.errors.length ? undefined : this.code;
    const results = code ? this.results : [...this.done, ...this.results];
    if (results.length) sections.push(`### Result\n${results.join('\n')}`);
    if (code) sections.push(`### Ran Playwright code\n\`\`\`${code.fence}\n${code.text}\n\`\`\``);
    if (this.notes.length) sections.push(`### Note\n${this.notes.join('\n')}`);
    if (this.modal.length) sections.push(`### Modal state\n${this.modal.map((l) => `- ${l}`).join('\n')}`);
    if (this.tabsList) sections.push(`### Open tabs\n${this.tabsList}`);
    const page = this.pageOmitted ? undefined : this.pageSection();
    if (page !== undefined) sections.push(page);
    if (this.consoleLines.length) sections.push(`### New console messages\n${this.consoleLines.map((l) => `- ${l}`).join('\n')}`);
    if (this.changesSection !== undefined) sections.push(this.changesSection);
    else if (this.snapshot !== undefined) sections.push(`### Snapshot\n\`\`\`yaml\n${this.snapshot}\n\`\`\``);
    // Sections follow one another line by line, as @playwright/mcp writes them.
    const content: ContentPart[] = [{ type: 'text', text: sections.join('\n') }];
    content.push(...this.images);
    const result: ToolResult = { content };
    if (this.errors.length) result.isError = true;
    return result;
  }
}

/** A tool result that only says what went wrong: the one way anyone (host, daemon, gateway) builds an error answer. */
export function errorResult(message: string): ToolResult {
  return new Response().addError(message).serialize();
}
