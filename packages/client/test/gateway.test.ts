import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningHttpGateway } from '@browsermcp/gateway';
import { startFixtureServer, type FixtureServer } from '@browsermcp/testkit';
import { MCPClient, MCPError } from '../src/index.js';
import { refIn, startGateway } from './helpers.js';

// Our gateway with its embedded daemon and a real headless Chromium behind it.
let gw: RunningHttpGateway;
let fixtures: FixtureServer;
beforeAll(async () => {
  [gw, fixtures] = await Promise.all([startGateway(), startFixtureServer()]);
});
afterAll(async () => {
  await gw?.close();
  await fixtures?.close();
});

// The session tests: a 2025 session (the client speaks 2026-07-28 statelessly unless told otherwise).
const connect = () => new MCPClient(`${gw.url}/mcp`, { headers: { Authorization: `Bearer ${gw.apiKey}` }, protocolVersion: '2025-11-25' });

describe('@browsermcp/client against the gateway', () => {
  it('navigates, snapshots and clicks a fixture page', async () => {
    const client = connect();
    try {
      const tools = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['browser_navigate', 'browser_snapshot', 'browser_click']));
      const nav = await client.call('browser_navigate', { url: fixtures.url('/') });
      expect(nav.isError).toBe(false);
      expect(nav.text).toContain('Fixture home');
      const snapshot = await client.call('browser_snapshot');
      const click = await client.call('browser_click', { target: refIn(snapshot.text, 'Click me'), element: 'Click me button' });
      expect(click.isError).toBe(false);
      expect(click.text).toContain('Clicked 1 times');
    } finally {
      await client.close();
    }
  });

  it('reports an unknown tool as isToolNotFound and a failing tool as isError', async () => {
    const client = connect();
    try {
      const error = (await client.call('browser_teleport').catch((e: unknown) => e)) as MCPError;
      expect(error).toBeInstanceOf(MCPError);
      expect(error.isToolNotFound()).toBe(true);
      const failed = await client.call('browser_click', { target: '#does-not-exist', element: 'nothing' });
      expect(failed.isError).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('re-initializes transparently after the session was deleted', async () => {
    const client = connect();
    try {
      await client.call('browser_evaluate', { function: '() => 1' });
      const first = client.getSessionId()!;
      const res = await fetch(`${gw.url}/mcp`, { method: 'DELETE', headers: { Authorization: `Bearer ${gw.apiKey}`, 'Mcp-Session-Id': first } });
      expect(res.ok).toBe(true);
      const again = await client.call('browser_evaluate', { function: '() => 6 * 7' });
      expect(again.text).toContain('### Result\n42');
      expect(client.getSessionId()).not.toBe(first);
    } finally {
      await client.close();
    }
  });

  it('re-initializes transparently after the gateway closed the session', async () => {
    const client = connect();
    try {
      await client.call('browser_navigate', { url: fixtures.url('/form.html') });
      const first = client.getSessionId()!;
      await gw.registry.close(first, 'closed by the test');
      const again = await client.call('browser_evaluate', { function: '() => location.href' });
      // A new session starts on a new blank tab.
      expect(again.text).toContain('about:blank');
      expect(client.getSessionId()).not.toBe(first);
    } finally {
      await client.close();
    }
  });

  it('close() ends the session on the gateway', async () => {
    const client = connect();
    await client.connect();
    const id = client.getSessionId()!;
    expect(gw.registry.get(id)).toBeDefined();
    await client.close();
    expect(gw.registry.get(id)).toBeUndefined();
  });

  it('a missing or wrong key is unauthorized', async () => {
    const missing = (await new MCPClient(`${gw.url}/mcp`).connect().catch((e: unknown) => e)) as MCPError;
    expect(missing.isUnauthorized()).toBe(true);
    expect(missing.status).toBe(401);
    const wrong = (await new MCPClient(`${gw.url}/mcp`, { headers: { Authorization: 'Bearer nope' } }).connect().catch((e: unknown) => e)) as MCPError;
    expect(wrong.isUnauthorized()).toBe(true);
    expect(wrong.status).toBe(403);
  });

  it('opens the GET stream', async () => {
    const client = connect();
    try {
      expect(await client.openStream()).toBe(true);
      expect(gw.registry.get(client.getSessionId()!)?.openStreams).toBe(1);
    } finally {
      await client.close();
    }
  });
});
