#!/usr/bin/env node
import { CommanderError } from 'commander';
import { isLoopbackHost, playwrightEnvAliases } from '@browsermcp/daemon';
import { buildProgram, ConfigError, resolveConfig, type GatewayConfig } from './config/gateway-config.js';
import { ExtensionBackend } from './backends/extension.js';
import { PortInUseError } from './errors.js';
import { keyFingerprint } from './agent-identity.js';
import { describeBrowser, pairingLines, runStdioGateway, shutdownLine, startHttpGateway, type RunningHttpGateway } from './gateway.js';
import { VERSION } from './version.js';

function banner(config: GatewayConfig, gw: RunningHttpGateway): string {
  const [base = gw.url, ...more] = gw.clientUrls;
  const mcp = `${base}/mcp`;
  const browser = describeBrowser(config);
  const lines = [
    `browsermcp-gateway ${VERSION}`,
    `  MCP (Streamable HTTP)  ${mcp}`,
    ...(more.length ? [`  Also reachable at      ${more.map((u) => `${u}/mcp`).join(', ')}`] : []),
    `  MCP (legacy SSE)       ${base}/sse`,
    `  Health                 ${base}/health`,
    `  Browser                ${browser}`,
    `  Output directory       ${config.outputDir}`,
  ];
  if (gw.apiKey) {
    // A key the user gave stays out of logs and terminals; only a generated one is printed, since nobody knows it yet.
    const key = config.apiKeysGiven ? '<your key>' : gw.apiKey;
    // What the person's popup names each key's agents by: its fingerprint, and the label --api-key-file gives it.
    const known = (config.apiKeysGiven ? config.apiKeys : [gw.apiKey]).map((k) => {
      const label = config.apiKeyLabels.get(k);
      return `${label ? `${label}: ` : ''}${keyFingerprint(k)}`;
    });
    lines.push(
      config.apiKeysGiven
        ? '  API key                yours (from --api-key, BROWSERMCP_API_KEY or --api-key-file; not printed)'
        : `  API key                ${gw.apiKey} (new at every start; pass --api-key-file to keep one)`,
      `  Shown to the person as ${known.join(', ')} (the popup names agents by key, as here)`,
      '',
      'Claude Code:',
      `  claude mcp add --transport http browsermcp ${mcp} --header "Authorization: Bearer ${key}"`,
      'Any MCP client (JSON config):',
      `  {"mcpServers": {"browsermcp": {"type": "http", "url": "${mcp}", "headers": {"Authorization": "Bearer ${key}"}}}}`,
    );
  } else {
    lines.push('  Auth                   none (--no-auth; loopback only)', '', `Claude Code:\n  claude mcp add --transport http browsermcp ${mcp}`);
  }
  if (config.extension && gw.backend instanceof ExtensionBackend) lines.push('', ...pairingLines(config, gw.backend.pairingCode));
  if (!isLoopbackHost(config.host)) {
    lines.push('', `WARNING: bound to ${config.host}, reachable from other machines. Keep the API key secret; requests are rate limited.`);
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const program = buildProgram().exitOverride();
  // A configuration written for @playwright/mcp sets its variables: they count as ours.
  Object.assign(process.env, playwrightEnvAliases(program, process.env));
  try {
    program.parse(process.argv);
  } catch (err) {
    // --help and --version exit 0; a bad flag exits 2 (commander already printed why).
    if (err instanceof CommanderError) process.exit(err.exitCode === 0 ? 0 : 2);
    throw err;
  }
  let config: GatewayConfig;
  try {
    config = resolveConfig(program);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`browsermcp-gateway: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }

  if (config.port === undefined) {
    // A signal ends a stdio session as closing stdin does: the session's tabs and the browser close first.
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
      process.once(signal, () => {
        setTimeout(() => process.exit(1), 10_000).unref();
        process.stdin.destroy();
      });
    }
    try {
      await runStdioGateway(config);
    } catch (err) {
      if (!(err instanceof PortInUseError)) throw err;
      process.stderr.write(`browsermcp-gateway: cannot start: ${err.message}\n`);
      process.exit(1);
    }
    process.exit(0);
  }

  let gateway: RunningHttpGateway;
  try {
    gateway = await startHttpGateway({ ...config, port: config.port });
  } catch (err) {
    process.stderr.write(`browsermcp-gateway: cannot start: ${(err as Error).message}\n`);
    process.exit(1);
  }
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`\n${signal}: ${shutdownLine(config)}\n`);
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    await gateway.close();
    process.exit(0);
  };
  // SIGHUP (its terminal closed) ends it as cleanly as SIGTERM: sessions closed, the browser it launched with them.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void stop(signal));
  // Printed once a signal would close it cleanly: whoever reads the banner may stop it at once.
  process.stderr.write(`${banner(config, gateway)}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`browsermcp-gateway: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
