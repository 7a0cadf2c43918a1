import { describe, expect, it } from 'vitest';
import { parseToolResult } from './tool-result';

describe('parseToolResult', () => {
  it('takes text and image parts, isError and _meta', () => {
    const result = {
      content: [
        { type: 'text', text: 'ok' },
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
      ],
      isError: false,
      _meta: { x: 1 },
    };
    expect(parseToolResult(result)).toEqual({ ok: true, value: result });
  });

  it('names the field that is wrong', () => {
    const missing = parseToolResult({ content: [{ type: 'text' }] });
    expect(missing.ok).toBe(false);
    if (!missing.ok) expect(missing.message).toContain('result.content[0].text');
    const notAResult = parseToolResult('clicked');
    expect(notAResult.ok).toBe(false);
    const unknownPart = parseToolResult({ content: [{ type: 'audio', data: 'x' }] });
    expect(unknownPart.ok).toBe(false);
    if (!unknownPart.ok) expect(unknownPart.message).toContain('result.content[0]');
  });
});
