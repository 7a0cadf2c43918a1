import { ErrorCodes, responseFor, type CommandEnvelope, type ResponseEnvelope } from '@browsermcp/protocol';
import { describe, expect, it, vi } from 'vitest';
import type { SessionRouter } from '../../src/index';
import { FakeExecutor, useConnectedRouter, settle } from '../helpers/fake-executor';

let router: SessionRouter;
let browser: FakeExecutor;

useConnectedRouter({ sessions: ['A', 'B'] }, (pair) => ({ router, browser } = pair));

describe('dispatch', () => {
  it('sends the command to the executor and resolves with the data of its response', async () => {
    const result = router.dispatch('A', { name: 'browser_snapshot', payload: { depth: 2 } });
    const command = await browser.command(0);
    expect(command).toMatchObject({ type: 'command', sessionId: 'A', name: 'browser_snapshot', payload: { depth: 2 } });
    browser.respond(command, { title: 'Example' });
    await expect(result).resolves.toEqual({ title: 'Example' });
  });

  it('callTool resolves with a checked tool result, and fails naming what is wrong when the browser sends anything else', async () => {
    const good = router.callTool('A', { name: 'browser_snapshot' });
    const result = { content: [{ type: 'text', text: '- heading "Example"' }], _meta: { kept: true } };
    browser.respond(await browser.command(0), result);
    await expect(good).resolves.toEqual(result);

    const bad = router.callTool('A', { name: 'browser_click' });
    browser.respond(await browser.command(1), { content: [{ type: 'text' }] });
    await expect(bad).rejects.toMatchObject({
      code: 'BMCP_ERR_COMMAND_FAILED',
      message: expect.stringContaining(
        'browser_click could not be run: the browser answered with something that is not a tool result ("result.content[0].text" is required)',
      ),
    });
  });

  it('gives every command its own UUID wireId', async () => {
    const results = Promise.all([router.dispatch('A', { name: 'one' }), router.dispatch('B', { name: 'two' })]);
    const [first, second] = [await browser.command(0), await browser.command(1)];
    expect(first.wireId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(second.wireId).not.toBe(first.wireId);
    browser.respond(first, 1);
    browser.respond(second, 2);
    await results;
  });

  it('runs the commands of one session one at a time, in the order they were dispatched', async () => {
    const results = Promise.all([router.dispatch('A', { name: 'one' }), router.dispatch('A', { name: 'two' }), router.dispatch('A', { name: 'three' })]);
    for (const [index, name] of ['one', 'two', 'three'].entries()) {
      const command = await browser.command(index);
      await settle();
      // Nothing after the command in flight has been sent.
      expect(browser.sent.map((sent) => sent.name)).toEqual(['one', 'two', 'three'].slice(0, index + 1));
      expect(command.name).toBe(name);
      browser.respond(command, index);
    }
    await expect(results).resolves.toEqual([0, 1, 2]);
  });

  it("completes another session's command while the first session's command is still running", async () => {
    const slow = router.dispatch('A', { name: 'browser_wait_for' });
    const blocked = await browser.command(0);
    const fast = router.dispatch('B', { name: 'browser_snapshot' });
    const command = await browser.command(1);
    expect(command.sessionId).toBe('B');
    browser.respond(command, 'B done');
    await expect(fast).resolves.toBe('B done');
    browser.respond(blocked, 'A done');
    await expect(slow).resolves.toBe('A done');
  });

  it("rejects with the executor's own code, message and data when it answers with an error", async () => {
    const result = router.dispatch('A', { name: 'browser_new_context' });
    browser.respondError(await browser.command(0), {
      code: ErrorCodes.ContextUnsupported,
      message: 'the extension cannot make named contexts',
      data: { context: 'work' },
    });
    await expect(result).rejects.toMatchObject({
      code: 'BMCP_ERR_EXECUTOR',
      rpcCode: ErrorCodes.ContextUnsupported,
      statusCode: 400,
      message: 'the extension cannot make named contexts',
      data: { context: 'work' },
    });
  });

  it('accepts a response given from inside send, as an in-process executor may', async () => {
    class AnsweringExecutor extends FakeExecutor {
      override send(command: CommandEnvelope): void {
        super.send(command);
        this.respond(command, `ran ${command.name}`);
      }
    }
    const local = new AnsweringExecutor(router, 'local-1', 'local');
    await router.executorConnected(local);
    await router.openSession('L', { executorId: 'local-1' });
    await expect(router.dispatch('L', { name: 'browser_snapshot' })).resolves.toBe('ran browser_snapshot');
  });

  it("takes an in-process executor's answer from send itself, without the router being called back", async () => {
    class DirectExecutor extends FakeExecutor {
      override async send(command: CommandEnvelope): Promise<ResponseEnvelope> {
        super.send(command);
        return responseFor(command, `ran ${command.name}`);
      }
    }
    const local = new DirectExecutor(router, 'local-2', 'local');
    await router.executorConnected(local);
    await router.openSession('D', { executorId: 'local-2' });
    const calledBack = vi.spyOn(router, 'handleResponse');
    await expect(router.dispatch('D', { name: 'browser_snapshot' })).resolves.toBe('ran browser_snapshot');
    expect(calledBack).not.toHaveBeenCalled();
    // An answer for another session is refused there too, as one through the router would be.
    class CrossingExecutor extends FakeExecutor {
      override async send(command: CommandEnvelope): Promise<ResponseEnvelope> {
        super.send(command);
        return { ...responseFor(command, 'x'), sessionId: 'someone-else' };
      }
    }
    await router.executorConnected(new CrossingExecutor(router, 'local-3', 'local'));
    await router.openSession('X', { executorId: 'local-3' });
    await expect(router.dispatch('X', { name: 'browser_click' })).rejects.toMatchObject({
      code: 'BMCP_ERR_COMMAND_FAILED',
      message: expect.stringContaining('the browser answered for another session'),
    });
  });

  it('fails a command with CommandFailed at once when the executor cannot send it', async () => {
    vi.spyOn(browser, 'send').mockImplementation(() => {
      throw new Error('socket is closing');
    });
    await expect(router.dispatch('A', { name: 'browser_click' })).rejects.toMatchObject({
      code: 'BMCP_ERR_COMMAND_FAILED',
      rpcCode: ErrorCodes.CommandFailed,
      message: 'browser_click could not be run: socket is closing',
    });
  });

  it('fails a command with CommandFailed when the executor rejects its send', async () => {
    vi.spyOn(browser, 'send').mockRejectedValue(new Error('write EPIPE'));
    await expect(router.dispatch('A', { name: 'browser_click' })).rejects.toMatchObject({
      code: 'BMCP_ERR_COMMAND_FAILED',
      message: 'browser_click could not be run: write EPIPE',
    });
    expect((await router.stats()).pending).toBe(0);
  });

  it('ignores a response from an executor that was not sent the command', async () => {
    const other = new FakeExecutor(router, 'browser-2');
    await router.executorConnected(other);
    const result = router.dispatch('A', { name: 'browser_click' });
    const command = await browser.command(0);
    expect(other.respond(command, 'forged')).toBe(false);
    browser.respond(command, 'real');
    await expect(result).resolves.toBe('real');
  });

  it('fails a pending command at once when its transport reports an unreadable response', async () => {
    const result = router.dispatch('A', { name: 'browser_click' });
    const command = await browser.command(0);
    const failed = router.failCommand('browser-1', command.wireId, {
      code: ErrorCodes.InvalidRequest,
      message: '"sessionId" is required',
    });
    expect(failed).toBe(true);
    await expect(result).rejects.toMatchObject({ rpcCode: ErrorCodes.InvalidRequest });
  });

  it('rejects a command for a session that is not open with SessionNotFound', async () => {
    await expect(router.dispatch('nobody', { name: 'browser_click' })).rejects.toMatchObject({
      code: 'BMCP_ERR_SESSION_NOT_FOUND',
      rpcCode: ErrorCodes.SessionNotFound,
      statusCode: 404,
    });
    expect(browser.sent).toHaveLength(0);
  });

  it('rejects an empty session id with InvalidParams', async () => {
    await expect(router.dispatch('', { name: 'browser_click' })).rejects.toMatchObject({
      code: 'BMCP_ERR_INVALID_ARGUMENT',
      rpcCode: ErrorCodes.InvalidParams,
      message: '"sessionId" must be a non-empty string',
    });
  });

  it('rejects a command without a name with InvalidParams', async () => {
    await expect(router.dispatch('A', { name: '' })).rejects.toMatchObject({
      code: 'BMCP_ERR_INVALID_ARGUMENT',
      message: '"command name" must be a non-empty string',
    });
  });
});
