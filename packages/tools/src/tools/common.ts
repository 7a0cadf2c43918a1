import { cutText, MAX_ANSWER_CHARS } from '../engine/sizes.js';
import { z } from 'zod';
import { ToolError } from '../engine/errors.js';
import type { Response } from '../session/response.js';
import type { ToolSession } from '../session/session.js';
import type { UrlCheck } from '../engine/origins.js';
import { fileUrlRefusal } from '../engine/protected-paths.js';

export const targetSchema = z
  .string()
  .min(1, 'target must not be empty: pass a ref from the latest snapshot (like e12) or a CSS selector')
  .describe('Exact target element: a ref from the latest page snapshot (like "e12" or "f1e3"), or a CSS selector');

export const elementSchema = z.string().optional().describe('Human-readable description of the element (used in messages and to explain the action)');

/** `filename`: an answer saved to a file (in the client's workspace, else the output directory) instead of coming back as text. */
export const filenameSchema = (what: string) =>
  z
    .string()
    .min(1, 'filename must not be empty')
    .optional()
    .describe(`Save ${what} to this file (relative to the client's workspace, else the output directory) instead of answering with it`);

/** Answers with `text`, or saves it under `filename` and says where. */
export async function answerOrSave(session: ToolSession, response: Response, text: string, filename: string | undefined, what: string): Promise<void> {
  if (filename === undefined) {
    // A page decides how large a value or a list is: the answer is bounded, and says how to get the whole.
    response.addResult(cutText(text, MAX_ANSWER_CHARS, `pass "filename" to save all of ${what}`));
    return;
  }
  const files = session.host.files;
  if (!files) throw new ToolError(`Saving files is not available here; omit filename to get ${what} in the answer.`);
  response.addResult(`Saved ${what} to ${await files.writeOutput(filename, new TextEncoder().encode(text))}`);
}

/** How an element is named in messages: the model's own description when it gave one. */
export function label(target: string, element?: string): string {
  return element ? `${element} (${target})` : target;
}

const ALLOWED = new Set(['http:', 'https:', 'about:', 'data:']);

/**
 * Normalizes a URL the model gave and refuses schemes that reach outside the web (`javascript:`, `chrome:`, and
 * `file:` unless the host allows it). Bare hosts get a scheme: http for loopback, https for the rest.
 */
export function normalizeUrl(
  raw: string,
  options: { allowUnrestrictedFileAccess?: boolean; protectedPaths?: readonly string[] | undefined; checkUrl?: UrlCheck | undefined } = {},
): string {
  const text = raw.trim();
  // "localhost:3000/x" parses as a URL whose scheme is "localhost:", so only "scheme://" or a known scheme counts.
  const hasScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) || /^(about|data|javascript|file|chrome|blob|mailto|view-source|vbscript):/i.test(text);
  const url = hasScheme ? text : `${/^(localhost|127\.|\[::1\])/i.test(text) ? 'http' : 'https'}://${text}`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ToolError(`"${raw}" is not a valid URL. Pass a full URL such as https://example.com/.`);
  }
  const allowed = ALLOWED.has(parsed.protocol) || (parsed.protocol === 'file:' && options.allowUnrestrictedFileAccess === true);
  if (!allowed) {
    throw new ToolError(`URLs with the "${parsed.protocol}" scheme are not allowed. Use an http(s) URL.`);
  }
  const refusal = fileUrlRefusal(parsed, options.protectedPaths) ?? options.checkUrl?.(parsed.href);
  if (refusal) throw new ToolError(refusal);
  return parsed.href;
}
