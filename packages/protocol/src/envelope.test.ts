import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ENVELOPE_TYPES,
  commandEnvelopeSchema,
  createCommand,
  createEvent,
  envelopeSchema,
  errorResponseEnvelopeSchema,
  errorResponseFor,
  eventEnvelopeSchema,
  generateWireId,
  parseEnvelope,
  responseEnvelopeSchema,
  responseFor,
  successResponseEnvelopeSchema,
  type CommandEnvelope,
  type Envelope,
  type EnvelopeParseResult,
} from './envelope';
import { ErrorCodes, ProtocolError } from './errors';

const command: CommandEnvelope = {
  wireId: 'w1',
  originId: 'conn1:5',
  sessionId: 's1',
  type: 'command',
  name: 'browser_click',
  payload: { ref: 'e3' },
  tabId: '42',
};

function failureOf(result: EnvelopeParseResult): { code: number; message: string; wireId: string | null } {
  if (result.ok) throw new Error('expected a failure');
  return { ...result.error, wireId: result.wireId };
}

describe('envelope schemas', () => {
  it('accept a command, an event and both kinds of response', () => {
    expect(commandEnvelopeSchema.safeParse(command).success).toBe(true);
    expect(eventEnvelopeSchema.safeParse({ ...command, type: 'event', name: 'console' }).success).toBe(true);
    const { payload: _payload, ...head } = command;
    expect(successResponseEnvelopeSchema.safeParse({ ...head, type: 'response', data: null }).success).toBe(true);
    expect(errorResponseEnvelopeSchema.safeParse({ ...head, type: 'response', error: { code: 1, message: 'm' } }).success).toBe(true);
  });

  it('refuse a response with both data and error, or neither', () => {
    const head = { wireId: 'w', sessionId: 's', type: 'response', name: 'n' };
    expect(responseEnvelopeSchema.safeParse({ ...head, data: 1, error: { code: 1, message: 'm' } }).success).toBe(false);
    expect(responseEnvelopeSchema.safeParse(head).success).toBe(false);
  });

  it('refuse empty ids and numeric tab ids', () => {
    expect(commandEnvelopeSchema.safeParse({ ...command, sessionId: '' }).success).toBe(false);
    expect(commandEnvelopeSchema.safeParse({ ...command, wireId: '' }).success).toBe(false);
    expect(commandEnvelopeSchema.safeParse({ ...command, tabId: 42 }).success).toBe(false);
  });

  it('envelopeSchema accepts every type and nothing else', () => {
    expect(ENVELOPE_TYPES).toStrictEqual(['command', 'response', 'event']);
    expect(envelopeSchema.safeParse(command).success).toBe(true);
    expect(envelopeSchema.safeParse({ ...command, type: 'request' }).success).toBe(false);
  });
});

describe('files in envelopes', () => {
  const file = { path: '/home/ada/cv.pdf', name: 'cv.pdf', mimeType: 'application/pdf', data: 'JVBERg==' };

  it('a command carries the files its tool reads, a success response the files its tool saved', () => {
    const command = parseEnvelope({ wireId: 'w', sessionId: 's', type: 'command', name: 'browser_file_upload', payload: {}, files: [file] });
    expect(command.ok && command.envelope.type === 'command' && command.envelope.files).toEqual([file]);
    const response = parseEnvelope({ wireId: 'w', sessionId: 's', type: 'response', name: 'n', data: null, files: [{ name: 'a.png', data: '' }] });
    expect(response.ok && response.envelope.type === 'response' && 'files' in response.envelope && response.envelope.files).toEqual([
      { name: 'a.png', data: '' },
    ]);
  });

  it('refuses a file without its path or name, with contents that are not text, or files on an error response', () => {
    for (const bad of [
      { ...file, path: '' },
      { ...file, name: undefined },
      { ...file, data: [1, 2] },
    ]) {
      const parsed = parseEnvelope({ wireId: 'w', sessionId: 's', type: 'command', name: 'n', payload: {}, files: [bad] });
      expect(parsed).toMatchObject({ ok: false, error: { code: -32600 } });
    }
    const onError = parseEnvelope({
      wireId: 'w',
      sessionId: 's',
      type: 'response',
      name: 'n',
      error: { code: 1, message: 'x' },
      files: [{ name: 'a', data: '' }],
    });
    expect(onError.ok && 'files' in onError.envelope).toBe(false);
  });
});

describe('parseEnvelope', () => {
  it('parses a command from JSON text', () => {
    expect(parseEnvelope(JSON.stringify(command))).toStrictEqual({ ok: true, envelope: command });
  });

  it('parses responses and narrows on type and error', () => {
    const result = parseEnvelope({
      wireId: 'w',
      sessionId: 's',
      type: 'response',
      name: 'n',
      error: { code: -32012, message: 'gone' },
    });
    if (!result.ok) throw new Error(result.error.message);
    const envelope: Envelope = result.envelope;
    if (envelope.type !== 'response' || envelope.error === undefined) throw new Error('expected an error response');
    expect(envelope.error.code).toBe(ErrorCodes.TabNotFound);
  });

  it('accepts a null data, which is still data', () => {
    expect(parseEnvelope({ wireId: 'w', sessionId: 's', type: 'response', name: 'n', data: null }).ok).toBe(true);
  });

  it('drops members the envelope does not define', () => {
    const result = parseEnvelope({ ...command, extra: true });
    expect(result).toStrictEqual({ ok: true, envelope: command });
  });

  it('answers bad JSON with -32700', () => {
    const failure = failureOf(parseEnvelope('{"wireId":'));
    expect(failure.code).toBe(-32700);
    expect(failure.wireId).toBeNull();
  });

  it.each([
    ['a non-object', [command], 'an envelope must be an object'],
    ['an unknown type', { ...command, type: 'request' }, '"type" must be "command", "response" or "event"'],
    ['a missing sessionId', { ...command, sessionId: undefined }, '"sessionId" is required'],
    ['an empty name', { ...command, name: '' }, '"name" must not be empty'],
    ['a numeric tabId', { ...command, tabId: 42 }, '"tabId" must be a string'],
    ['a missing payload', { ...command, payload: undefined }, '"payload" is required'],
    ['a response with neither', { wireId: 'w', sessionId: 's', type: 'response', name: 'n' }, 'must carry "data" or "error"'],
    ['a response with both', { wireId: 'w', sessionId: 's', type: 'response', name: 'n', data: 1, error: {} }, 'not both'],
    ['a bad error', { wireId: 'w', sessionId: 's', type: 'response', name: 'n', error: { message: 'm' } }, '"error.code" is required'],
  ])('answers %s with -32600 naming the field', (_label, input, fault) => {
    // JSON round trip, as on the wire: undefined members disappear.
    const failure = failureOf(parseEnvelope(JSON.stringify(input)));
    expect(failure.code).toBe(-32600);
    expect(failure.message).toContain(fault);
  });

  it('reports the wireId of an invalid envelope when it could be read', () => {
    expect(failureOf(parseEnvelope({ ...command, sessionId: 3 })).wireId).toBe('w1');
    expect(failureOf(parseEnvelope({ ...command, wireId: 3 })).wireId).toBeNull();
  });

  it('never throws, whatever the input', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.jsonValue(), fc.anything()), (input) => {
        expect(typeof parseEnvelope(input).ok).toBe('boolean');
      }),
    );
  });
});

describe('generateWireId', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('returns distinct UUIDs', () => {
    const a = generateWireId();
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(generateWireId()).not.toBe(a);
  });

  it('says so when crypto.randomUUID is missing', () => {
    vi.stubGlobal('crypto', undefined);
    expect(() => generateWireId()).toThrow(/randomUUID is not available/);
  });
});

describe('createCommand', () => {
  it('builds a command with the given wireId, leaving out absent optional members', () => {
    const built = createCommand({ sessionId: 's1', name: 'browser_snapshot', payload: {} }, 'w9');
    expect(built).toStrictEqual({
      wireId: 'w9',
      sessionId: 's1',
      type: 'command',
      name: 'browser_snapshot',
      payload: {},
    });
    expect(JSON.parse(JSON.stringify(built))).toStrictEqual(built);
  });

  it('carries tabId and originId', () => {
    const built = createCommand({ sessionId: 's1', name: 'n', payload: 1, tabId: '7', originId: 'c:1' }, 'w');
    expect(built).toMatchObject({ tabId: '7', originId: 'c:1' });
  });

  it('generates a wireId when none is given', () => {
    const a = createCommand({ sessionId: 's', name: 'n', payload: null });
    const b = createCommand({ sessionId: 's', name: 'n', payload: null });
    expect(a.wireId).not.toBe(b.wireId);
    expect(parseEnvelope(JSON.stringify(a))).toStrictEqual({ ok: true, envelope: a });
  });

  it('turns an undefined payload into null', () => {
    expect(createCommand({ sessionId: 's', name: 'n', payload: undefined }, 'w').payload).toBeNull();
  });

  it('throws a TypeError naming an invalid field', () => {
    expect(() => createCommand({ sessionId: '', name: 'n', payload: 1 }, 'w')).toThrow(new TypeError('createCommand: "sessionId" must not be empty'));
    expect(() => createCommand({ sessionId: 's', name: 'n', payload: 1 }, '')).toThrow(/"wireId"/);
  });
});

describe('createEvent', () => {
  it('builds an event for a session and tab', () => {
    const event = createEvent({ sessionId: 's1', name: 'console', payload: { text: 'hi' }, tabId: '42' }, 'w2');
    expect(event).toStrictEqual({
      wireId: 'w2',
      sessionId: 's1',
      type: 'event',
      name: 'console',
      payload: { text: 'hi' },
      tabId: '42',
    });
  });

  it('generates a wireId and refuses an empty name', () => {
    expect(createEvent({ sessionId: 's', name: 'dialog', payload: null }).wireId).not.toBe('');
    expect(() => createEvent({ sessionId: 's', name: '', payload: null })).toThrow(/createEvent: "name"/);
  });
});

describe('responseFor and errorResponseFor', () => {
  it('responseFor echoes wireId, sessionId, name, tabId and originId', () => {
    expect(responseFor(command, { clicked: true })).toStrictEqual({
      wireId: 'w1',
      originId: 'conn1:5',
      sessionId: 's1',
      type: 'response',
      name: 'browser_click',
      tabId: '42',
      data: { clicked: true },
    });
  });

  it('responseFor leaves out what the command did not have, and turns undefined into null', () => {
    const bare = createCommand({ sessionId: 's', name: 'n', payload: {} }, 'w');
    expect(responseFor(bare, undefined)).toStrictEqual({
      wireId: 'w',
      sessionId: 's',
      type: 'response',
      name: 'n',
      data: null,
    });
  });

  it('errorResponseFor echoes the command and carries the error', () => {
    const response = errorResponseFor(command, {
      code: ErrorCodes.TabOwnedByOtherSession,
      message: 'Tab 42 is owned by another session',
    });
    expect(response).toStrictEqual({
      wireId: 'w1',
      originId: 'conn1:5',
      sessionId: 's1',
      type: 'response',
      name: 'browser_click',
      tabId: '42',
      error: { code: -32013, message: 'Tab 42 is owned by another session' },
    });
    expect(parseEnvelope(JSON.stringify(response))).toStrictEqual({ ok: true, envelope: response });
  });

  it('errorResponseFor takes a ProtocolError and copies only code, message and data', () => {
    const response = errorResponseFor(command, new ProtocolError(-32014, 'slow', { data: { ms: 30000 } }));
    expect(response.error).toStrictEqual({ code: -32014, message: 'slow', data: { ms: 30000 } });
  });

  it('errorResponseFor refuses a non-integer code', () => {
    expect(() => errorResponseFor(command, { code: 0.5, message: 'x' })).toThrow(TypeError);
  });

  it('round-trip through JSON for arbitrary commands and data', () => {
    const id = fc.string({ minLength: 1 });
    fc.assert(
      fc.property(id, id, id, fc.option(id, { nil: undefined }), fc.jsonValue(), (wireId, sessionId, name, tabId, data) => {
        const cmd = createCommand(tabId === undefined ? { sessionId, name, payload: data } : { sessionId, name, payload: data, tabId }, wireId);
        const text = JSON.stringify(responseFor(cmd, data));
        const parsed = parseEnvelope(text);
        expect(parsed).toStrictEqual({ ok: true, envelope: JSON.parse(text) });
      }),
    );
  });
});
