import type { FixtureServer } from '@browsermcp/testkit';
import { describe, expect, it } from 'vitest';
import type { RunningHttpGateway } from '../src/index.js';
import { connectClient, text, useGatewayAndFixtures } from './helpers.js';
import { startDaemon } from '@browsermcp/daemon';

let gw: RunningHttpGateway;
let server: FixtureServer;

useGatewayAndFixtures((pair) => ({ gw, server } = pair));

describe('sessions do not wait for each other', () => {
  it('a 60 s browser_wait_for in one session does not delay another session', async () => {
    const [slow, fast] = await Promise.all([connectClient(gw, 'slow'), connectClient(gw, 'fast')]);
    await slow.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html') } });
    let settled = false;
    void slow
      .callTool({ name: 'browser_wait_for', arguments: { time: 60 } }, undefined, { timeout: 120_000 })
      .catch((e: unknown) => e)
      .then(() => (settled = true));
    for (let i = 0; i < 3; i++) {
      const nav = text(await fast.callTool({ name: 'browser_navigate', arguments: { url: server.url('/form.html') } }));
      expect(nav).toContain('- Page Title: Form');
    }
    // Had the fast session queued behind the slow one, its navigations would have ended after the wait.
    expect(settled).toBe(false);
    await Promise.all([slow.close(), fast.close()]);
  });
});

describe('web pages in the same browser cannot use the gateway or the daemon', () => {
  it('refuses fetch and WebSocket from a page the agent opened', async () => {
    const client = await connectClient(gw);
    await client.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html') } });
    const sessions = async () => ((await (await fetch(`${gw.url}/health`)).json()) as { activeSessions: number }).activeSessions;
    const before = await sessions();
    const attack = `async () => {
      const out = {};
      try {
        const r = await fetch('${gw.url}/mcp', { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer ${gw.apiKey}' }, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' });
        out.fetch = 'status ' + r.status;
      } catch (e) { out.fetch = 'blocked: ' + e.message; }
      try {
        const r = await fetch('${gw.url}/mcp', { method: 'POST', mode: 'no-cors', body: '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}' });
        out.noCors = 'opaque ' + r.type;
      } catch (e) { out.noCors = 'blocked: ' + e.message; }
      out.ws = await new Promise((resolve) => {
        const ws = new WebSocket('${gw.url.replace('http', 'ws')}/mcp');
        ws.onopen = () => resolve('open');
        ws.onerror = () => resolve('error');
      });
      return out;
    }`;
    const result = text(await client.callTool({ name: 'browser_evaluate', arguments: { function: attack } }));
    // The preflighted request never reaches the handler (403 on the preflight → fetch fails); the simple one is
    // refused by the Origin check before any work; the WebSocket upgrade is refused too.
    expect(result).toMatch(/"fetch": "blocked: /);
    expect(result).toContain('"noCors": "opaque opaque"');
    expect(result).toContain('"ws": "error"');
    // The no-cors initialize created no session.
    expect(await sessions()).toBe(before);
    await client.close();
  });

  it("refuses fetch and WebSocket from a page to the daemon's HTTP API, /extension and /mcp", async () => {
    const daemon = await startDaemon({ host: '127.0.0.1', port: 0, local: null });
    try {
      const client = await connectClient(gw);
      await client.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html') } });
      const base = daemon.address;
      const ws = base.replace('http', 'ws');
      const attack = `async () => {
        const out = {};
        try { const r = await fetch('${base}/sessions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }); out.sessions = 'status ' + r.status; }
        catch (e) { out.sessions = 'blocked'; }
        try { const r = await fetch('${base}/sessions', { method: 'POST', mode: 'no-cors', body: '{}' }); out.noCors = r.type; }
        catch (e) { out.noCors = 'blocked'; }
        const open = (path) => new Promise((resolve) => { const s = new WebSocket('${ws}' + path); s.onopen = () => resolve('open'); s.onerror = () => resolve('error'); });
        out.extension = await open('/extension');
        out.mcp = await open('/mcp');
        return out;
      }`;
      const sessionsBefore = (await daemon.router.stats()).sessions;
      const result = text(await client.callTool({ name: 'browser_evaluate', arguments: { function: attack } }));
      expect(result).toContain('"sessions": "blocked"');
      expect(result).toContain('"noCors": "opaque"');
      expect(result).toContain('"extension": "error"');
      expect(result).toContain('"mcp": "error"');
      // The simple no-cors POST was refused before it could open a session.
      expect((await daemon.router.stats()).sessions).toBe(sessionsBefore);
      await client.close();
    } finally {
      await daemon.close();
    }
  });
});
