import { describe, expect, it } from 'vitest';
import { parseBrowserEntry, parseClusterReply, parseClusterRequest, parseSessionEnded } from './cluster';

const command = { wireId: 'w1', sessionId: 's1', type: 'command', name: 'browser_snapshot', payload: {} };

describe('the messages daemons of a cluster exchange', () => {
  it('reads each kind of request, and says what is wrong with a bad one', () => {
    expect(parseClusterRequest({ op: 'send', executorId: 'b1', command, timeoutMs: 1000 })).toMatchObject({ ok: true });
    expect(parseClusterRequest({ op: 'open', session: { sessionId: 's1', executorId: 'b1', servedBy: 'east-1' } })).toMatchObject({ ok: true });
    expect(parseClusterRequest({ op: 'close', executorId: 'b1', sessionId: 's1' })).toMatchObject({ ok: true });
    expect(parseClusterRequest({ op: 'cancel', wireId: 'w1', reason: 'timeout' })).toMatchObject({ ok: true });
    expect(parseClusterRequest({ op: 'ping' })).toMatchObject({ ok: true });
    expect(parseClusterRequest({ op: 'send', executorId: 'b1', command, timeoutMs: 0 })).toMatchObject({
      ok: false,
      message: expect.stringContaining('timeoutMs'),
    });
    expect(parseClusterRequest({ op: 'explode' })).toMatchObject({ ok: false });
    expect(parseClusterRequest({ op: 'cancel', wireId: '', reason: 'cancelled' })).toMatchObject({ ok: false, message: expect.stringContaining('wireId') });
  });

  it('reads replies with a response or a crossed error', () => {
    expect(parseClusterReply({ ok: true })).toMatchObject({ ok: true });
    const response = { wireId: 'w1', sessionId: 's1', type: 'response', name: 'browser_snapshot', data: { content: [] } };
    expect(parseClusterReply({ ok: true, response })).toMatchObject({ ok: true, value: { response } });
    const error = { code: 'BMCP_ERR_TAB_OWNED', rpcCode: -32013, message: 'tab 3 is owned by another session' };
    expect(parseClusterReply({ ok: false, error })).toMatchObject({ ok: true, value: { ok: false, error } });
    expect(parseClusterReply({ ok: false })).toMatchObject({ ok: false });
  });

  it('reads forwarded events, ended sessions and directory entries', () => {
    const event = { ...command, type: 'event', name: 'console' };
    expect(parseClusterRequest({ op: 'event', executorId: 'b1', event })).toMatchObject({ ok: true, value: { op: 'event', event } });
    expect(parseClusterRequest({ op: 'event', executorId: 'b1', event: command })).toMatchObject({ ok: false });
    expect(parseClusterRequest({ op: 'event', event })).toMatchObject({ ok: false });
    expect(parseSessionEnded({ instanceId: 'a', sessionId: 's1', reason: 'stopped' })).toMatchObject({ ok: true });
    expect(parseSessionEnded({ instanceId: 'a', sessionId: 's1', reason: 'bored' })).toMatchObject({ ok: false });
    const entry = { id: 'b1', instanceId: 'a', kind: 'extension', name: "alice's Chrome", userId: 'alice', connected: true };
    expect(parseBrowserEntry(entry)).toEqual({ ok: true, value: entry });
    expect(parseBrowserEntry({ ...entry, userId: undefined })).toMatchObject({ ok: false, message: expect.stringContaining('userId') });
  });
});
