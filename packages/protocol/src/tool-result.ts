// What a browser answers a tool command with: MCP content parts, shaped like the MCP SDK's CallToolResult without
// depending on it. Every host (a launched browser, the person's extension, a remote daemon) answers in this shape, and
// the router checks it, so what reaches the gateway is typed rather than cast.
import { z } from 'zod';
import { validate, type Validated } from './validate';

export const textContentSchema = z.object({ type: z.literal('text'), text: z.string() });
export type TextContent = z.infer<typeof textContentSchema>;

export const imageContentSchema = z.object({ type: z.literal('image'), data: z.string(), mimeType: z.string() });
export type ImageContent = z.infer<typeof imageContentSchema>;

export const contentPartSchema = z.discriminatedUnion('type', [textContentSchema, imageContentSchema]);
export type ContentPart = z.infer<typeof contentPartSchema>;

export const toolResultSchema = z.object({
  content: z.array(contentPartSchema),
  isError: z.boolean().optional(),
  /** For the gateway, never for the model: e.g. the page's WebMCP tools when they changed. */
  _meta: z.record(z.string(), z.unknown()).optional(),
});
export type ToolResult = z.infer<typeof toolResultSchema>;

/** Checks a tool command's answer; the message names the field that is wrong ("result.content[0].text …"). */
export function parseToolResult(value: unknown): Validated<ToolResult> {
  return validate(toolResultSchema, value, 'result');
}
