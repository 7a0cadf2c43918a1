/** `fetch` or anything shaped like it (a proxy, a test double, undici's fetch). */
export type FetchLike = (url: string, init?: RequestInit) => Promise<Response>;

export interface Implementation {
  name: string;
  version: string;
  title?: string;
}

export interface MCPClientOptions {
  /** Sent with every request, e.g. `{ Authorization: 'Bearer <key>' }`. */
  headers?: Record<string, string>;
  /** Milliseconds a request may take; a progress notification restarts the clock. 0 = none. Default 30000. */
  timeout?: number;
  fetch?: FetchLike;
  /**
   * The version to speak. Default: 2026-07-28 when the server offers it (asked with `server/discover`), else the newest
   * 2025 one it accepts. A 2025 version skips the probe and offers that one first.
   */
  protocolVersion?: string;
  clientInfo?: Implementation;
}

export interface RequestOptions {
  signal?: AbortSignal;
  onProgress?: (progress: Progress) => void;
  /** Overrides the client's timeout for this request. */
  timeout?: number;
}

export interface Progress {
  progressToken: string | number;
  progress: number;
  total?: number;
  message?: string;
}

export interface JSONRPCNotification {
  jsonrpc: '2.0';
  method: string;
  params?: Record<string, unknown>;
}

export interface InitializeResult {
  protocolVersion: string;
  capabilities: Record<string, unknown>;
  serverInfo: Implementation;
  instructions?: string;
}

export interface Tool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface ContentPart {
  type: string;
  text?: string;
  /** Base64 for image and audio parts. */
  data?: string;
  mimeType?: string;
  [key: string]: unknown;
}

export interface CallToolResult {
  content: ContentPart[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  [key: string]: unknown;
}

export interface CallResult {
  /** The result as the server sent it. */
  raw: CallToolResult;
  /** The text parts, joined with "\n". */
  text: string;
  /** `structuredContent` if any, else the text parsed as JSON, else undefined. */
  data: unknown;
  isError: boolean;
}

export interface MCPClientEvents {
  /** Every notification from the server (progress, logging, list changes…). */
  notification: (notification: JSONRPCNotification) => void;
  /** The GET stream of `openStream()` failed for good. */
  error: (error: Error) => void;
}
