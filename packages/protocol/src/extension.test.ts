import { describe, expect, it } from 'vitest';
import { ExtensionCloseCodes, ExtensionEvents, parseHelloPayload, parseSessionOpened, parseWaitingForPerson } from './extension';

describe('the daemon ↔ extension contract', () => {
  it('reads a hello, defaulting its tabs, and says what is wrong with a bad one', () => {
    expect(parseHelloPayload({ browserId: 'ext-1', browser: 'Chrome 131', version: '0.1.0' })).toEqual({
      ok: true,
      value: { browserId: 'ext-1', browser: 'Chrome 131', version: '0.1.0', tabs: [] },
    });
    expect(parseHelloPayload({ browserId: 'local', browser: 'x', version: '1' })).toEqual({
      ok: false,
      message: `"payload.browserId": must not be "local" (the daemon's own browser)`,
    });
    expect(parseHelloPayload({ browserId: 'a b', browser: 'x', version: '1' })).toMatchObject({
      ok: false,
      message: expect.stringContaining('must be 1-64 letters'),
    });
    expect(parseHelloPayload({ browserId: 'b', browser: 'x', version: '1', tabs: [{ tabId: 7, sessionId: 's' }] })).toEqual({
      ok: false,
      message: '"payload.tabs[0].tabId" must be a string',
    });
  });

  it('reads session_opened and waiting_for_person payloads', () => {
    expect(parseSessionOpened({ clientName: 'Claude', settings: { snapshotMaxChars: 5000, blockedOrigins: ['https://bank.example'] } }).ok).toBe(true);
    expect(parseSessionOpened({ clientName: 3 })).toEqual({ ok: false, message: '"payload.clientName" must be a string' });
    const flags = {
      snapshotMode: 'none',
      snapshotBoxes: true,
      actionTimeoutMs: 300,
      navigationTimeoutMs: 1500,
      consoleLevel: 'error',
      imageResponses: 'omit',
      testIdAttribute: 'data-qa',
      outputDir: '/tmp/out',
    };
    expect(parseSessionOpened({ clientName: null, settings: flags })).toEqual({ ok: true, value: { clientName: null, settings: flags } });
    expect(parseSessionOpened({ clientName: null, settings: { imageResponses: 'sometimes' } }).ok).toBe(false);
    expect(parseWaitingForPerson({ message: 'Waiting for the person', ms: 120_000 }).ok).toBe(true);
    expect(parseWaitingForPerson({ message: '', ms: 0 })).toMatchObject({ ok: false, message: expect.stringContaining('"payload.message" must not be empty') });
  });

  it('names every event and close code once', () => {
    expect(new Set(Object.values(ExtensionEvents)).size).toBe(Object.values(ExtensionEvents).length);
    expect(new Set(Object.values(ExtensionCloseCodes)).size).toBe(Object.values(ExtensionCloseCodes).length);
  });
});
