#!/usr/bin/env node
// The client under test for @modelcontextprotocol/conformance: `conformance client --command "node
// test/conformance-client.mjs" --scenario <name>` appends the server URL and names the scenario in
// MCP_CONFORMANCE_SCENARIO. Uses the ESM build, as a Node user would.
import { MCPClient } from '../dist/index.js';

const url = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? 'initialize';
const client = new MCPClient(url, { timeout: 10_000 });
try {
  const { serverInfo, protocolVersion } = await client.connect();
  console.log(`connected to ${serverInfo.name} (${protocolVersion})`);
  const tools = await client.listTools();
  console.log(`tools: ${tools.map((t) => t.name).join(', ') || '(none)'}`);
  if (scenario === 'tools_call') console.log((await client.call('add_numbers', { a: 5, b: 3 })).text);
  // The server closes the call's stream before answering: the client must resume with GET after `retry` ms.
  if (scenario === 'sse-retry') console.log((await client.call('test_reconnection')).text);
} catch (error) {
  console.error(`${scenario} failed: ${error.code ?? ''} ${error.message}`);
  process.exitCode = 1;
} finally {
  await client.close();
}
