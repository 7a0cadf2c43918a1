import { randomBytes } from 'node:crypto';
import { keyHash } from './agent-identity.js';
import { hostname, networkInterfaces } from 'node:os';
import { allowedHostNames, chromeToLaunch, connectionLimitsOf, formatDuration, isLoopbackHost, loadPairingSecret } from '@browsermcp/daemon';
import { sessionConfigFrom, toolsFor, type ToolSettings } from '@browsermcp/tools';
import { TOOL_SETTING_KEYS, type ToolSettingKey } from '@browsermcp/protocol';
import type { Backend } from './backend.js';
import { EmbeddedBackend } from './backends/embedded.js';
import { ExtensionBackend } from './backends/extension.js';
import { RemoteBackend } from './backends/remote.js';
import type { GatewayConfig } from './config/gateway-config.js';
import { STATELESS_STATE_KEEP_MS } from './config/own-settings.js';
import { buildHttpGateway, type HttpGateway } from './transports/http/app.js';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { SessionCalls } from './calls/session-calls.js';
import { StatelessCalls } from './calls/stateless-calls.js';
import { BrowserStates } from './calls/browser-states.js';
import { createMcpServer, describeTools } from './mcp-server.js';
import { newSessionId } from './sessions.js';
import { LineStdioTransport } from './transports/stdio.js';
import { SessionRecords } from './session-records.js';
import { VERSION } from './version.js';
import { describeNotice } from './notices.js';
import { portInUse } from './errors.js';
import type { RootsPolicy } from './roots.js';

export async function createBackend(config: GatewayConfig): Promise<Backend> {
  if (config.daemonUrls.length) {
    return new RemoteBackend({
      daemonUrls: config.daemonUrls,
      daemonToken: config.daemonToken,
      daemonBrowser: config.daemonBrowser,
      commandTimeoutMs: config.commandTimeoutMs,
      keepBrowserStateMs: config.keepBrowserStateMs,
      // What the user set, not the defaults: the daemon's operator's own settings hold for the rest.
      sessionSettings: { ...config.toolSettingsGiven, caps: config.caps },
    });
  }
  if (config.extension) {
    return ExtensionBackend.start({
      daemonPort: config.daemonPort,
      // The person pairs their browser once: the secret outlives the gateway in its file.
      pairingSecret: loadPairingSecret(config.pairingFile).secret,
      // None given: the daemon's own default, the development build's id.
      ...(config.extensionIds.length ? { extensionIds: config.extensionIds } : {}),
      commandTimeoutMs: config.commandTimeoutMs,
      gracePeriodMs: config.gracePeriodMs,
      maxBrowserStates: config.maxBrowserStates,
      sessionSettings: { ...toolSettings(config), caps: config.caps },
      // Uploads are read here under the same roots as a launched browser and travel to the extension as bytes.
      files: {
        outputDir: config.outputDir,
        fileRoots: config.fileRoots,
        allowUnrestrictedFileAccess: config.allowUnrestrictedFileAccess,
        protectedPaths: config.protectedPaths,
        outputMaxBytes: config.outputMaxBytes,
        filePaths: config.filePaths,
      },
      keepBrowserStateMs: config.keepBrowserStateMs,
      keyLabels: keyLabelsOf(config),
    });
  }
  return new EmbeddedBackend({
    executablePath: config.executablePath,
    browserArgs: config.browserArgs,
    sandbox: config.sandbox,
    headless: config.headless,
    viewport: config.viewport,
    userDataDir: config.userDataDir,
    cdpEndpoint: config.cdpEndpoint,
    cdpHeaders: config.cdpHeaders,
    cdpTimeoutMs: config.cdpTimeoutMs,
    sharedBrowserContext: config.sharedBrowserContext,
    outputDir: config.outputDir,
    fileRoots: config.fileRoots,
    outputMaxBytes: config.outputMaxBytes,
    filePaths: config.filePaths,
    idleTimeoutMs: config.idleTimeoutMs,
    allowUnrestrictedFileAccess: config.allowUnrestrictedFileAccess,
    protectedPaths: config.protectedPaths,
    caps: config.caps,
    commandTimeoutMs: config.commandTimeoutMs,
    toolConfig: sessionConfigFrom(toolSettings(config)),
    pageSetup: config.pageSetup,
    ignoreHttpsErrors: config.ignoreHttpsErrors,
    proxy: config.proxy,
    keepBrowserStateMs: config.keepBrowserStateMs,
    maxBrowserStates: config.maxBrowserStates,
    maxKeyMemoryMb: config.maxKeyMemoryMb,
  });
}

/** --api-key-file's labels by the key's hash (how sessions name their caller), never by the key. */
function keyLabelsOf(config: GatewayConfig): Map<string, string> {
  return new Map([...config.apiKeyLabels].map(([key, label]) => [keyHash(key), label]));
}

/** How long a browser state outlives its last stateless request: --keep-browser-state, else STATELESS_STATE_KEEP_MS. */
export function browserStateKeepMs(config: GatewayConfig): number {
  return config.keepBrowserStateMs ?? STATELESS_STATE_KEEP_MS;
}

/** The flags that shape how tools behave, in the one form both backends apply (the extension gets them per session). */
function toolSettings(config: GatewayConfig): ToolSettings {
  return {
    ...(Object.fromEntries(TOOL_SETTING_KEYS.map((key) => [key, config[key]])) as Pick<GatewayConfig, ToolSettingKey>),
    allowUnrestrictedFileAccess: config.allowUnrestrictedFileAccess,
    ...(config.allowUnrestrictedFileAccess ? { protectedPaths: config.protectedPaths } : {}),
    ...(config.secrets ? { secrets: config.secrets } : {}),
  };
}

export interface RunningHttpGateway extends HttpGateway {
  url: string;
  /**
   * Base URLs a client can use: `url` itself on a loopback or named host; bound to every interface (0.0.0.0, ::), this
   * machine's host name and addresses instead, since 0.0.0.0 names no machine.
   */
  clientUrls: string[];
  apiKey: string | undefined;
  backend: Backend;
}

/** Starts the HTTP gateway (Streamable HTTP + legacy SSE) with the embedded daemon. */
export async function startHttpGateway(
  config: GatewayConfig & { port: number },
  extra: { logStream?: NodeJS.WritableStream } = {},
): Promise<RunningHttpGateway> {
  const apiKeys = config.noAuth ? [] : config.apiKeys.length ? config.apiKeys : [randomBytes(24).toString('base64url')];
  const apiKey = apiKeys[0];
  const backend = await createBackend(config);
  const hostForUrl = config.host.includes(':') && !config.host.startsWith('[') ? `[${config.host}]` : config.host;
  // Names only, as the daemon's guard takes them: the bound address and the allowed hosts, on any port.
  // Bound to every interface, the machine's own names are the ones clients use: they are allowed too.
  const own = ownNames(config.host);
  const allowedHosts = allowedHostNames([...config.allowedHosts, hostForUrl, ...own]);
  const gateway = await buildHttpGateway({
    backend,
    tools: describeTools(toolsFor(config.caps), browserStateKeepMs(config)),
    apiKeys,
    allowedHosts,
    corsOrigins: new Set(config.corsOrigins.map((o) => o.toLowerCase())),
    rateLimit: config.rateLimit,
    authFailuresPerMinute: 10,
    sessionIdleMs: config.sessionIdleMs,
    sessionLimits: { maxSessions: config.maxSessions, maxSessionsPerKey: config.maxSessionsPerKey },
    ssePingMs: 30_000,
    gracePeriodMs: config.gracePeriodMs,
    bodyLimit: 1024 * 1024,
    connectionLimits: connectionLimitsOf(config),
    eventStoreSize: 1000,
    logLevel: config.logLevel,
    roots: httpRoots(config, apiKeys.length),
    browserStateKeepMs: browserStateKeepMs(config),
    maxBrowserStatesPerKey: config.maxBrowserStatesPerKey,
    progressIntervalMs: config.progressIntervalMs,
    sessionRecords: config.saveSession
      ? new SessionRecords({ outputDir: config.outputDir, outputMaxBytes: config.outputMaxBytes }, (m) => process.stderr.write(`browsermcp-gateway: ${m}\n`))
      : undefined,
    trustProxy: config.trustProxy,
    keyLabels: keyLabelsOf(config),
    logStream: extra.logStream,
  });
  try {
    await gateway.app.listen({ port: config.port, host: config.host });
  } catch (err) {
    await gateway.close();
    await backend.close();
    throw portInUse(err, config.port, '--port');
  }
  const address = gateway.app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${hostForUrl}:${port}`;
  return {
    ...gateway,
    url,
    clientUrls: own.length ? own.map((name) => `http://${name}:${port}`) : [url],
    apiKey,
    backend,
    async close() {
      await gateway.close();
      await backend.close();
    },
  };
}

/**
 * Whose roots count over HTTP (roots.ts): a client's only inside --file-roots unless --trust-client-roots, and none
 * from elsewhere; the working directory only on loopback with a single key (one person owns the gateway).
 */
export function httpRoots(config: GatewayConfig, keys: number): RootsPolicy {
  const loopback = isLoopbackHost(config.host);
  return {
    client: !loopback ? 'none' : config.trustClientRoots ? 'anywhere' : { within: config.fileRoots },
    cwd: loopback && keys === 1,
    // A client's roots are its own to save in where one person owns the gateway, or vouched for them.
    saves: loopback && (keys === 1 || config.trustClientRoots) ? 'roots' : 'none',
  };
}

/** Over stdio the client owns the gateway: its roots count anywhere, and the working directory while it names none. */
const STDIO_ROOTS: RootsPolicy = { client: 'anywhere', cwd: true, saves: 'roots-or-cwd' };

/** Serves one MCP session over stdin/stdout; resolves when stdin closes and everything is shut down. */
export async function runStdioGateway(config: GatewayConfig, write: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): Promise<void> {
  // stdout carries the protocol; these lines go to stderr, and only at --log-level info or chattier.
  const log = ['info', 'debug', 'trace'].includes(config.logLevel) ? write : () => undefined;
  const backend = await createBackend(config);
  const sessionId = newSessionId();
  const transport = new LineStdioTransport();
  const tools = describeTools(toolsFor(config.caps), browserStateKeepMs(config));
  const states = new BrowserStates({
    backend,
    keyOwner: 'stdio',
    browserStateKeepMs: browserStateKeepMs(config),
    maxBrowserStatesPerKey: config.maxBrowserStatesPerKey,
  });
  const records = config.saveSession ? new SessionRecords({ outputDir: config.outputDir, outputMaxBytes: config.outputMaxBytes }, write) : undefined;
  let opened = false;
  // The SDK picks the era from the client's first message: a 2025 initialize pins one session for the connection;
  // 2026-07-28 requests each take up the client's browser state. One client per stdio gateway: it is the only owner.
  const stdio = serveStdio(
    ({ era }) =>
      createMcpServer({
        tools,
        version: VERSION,
        log: (e) => log(`tool ${e.tool} ${Math.round(e.ms)} ms ${e.ok ? 'ok' : `error${e.error ? `: ${e.error}` : ''}`}`),
        progressIntervalMs: config.progressIntervalMs,
        record: records?.for(undefined),
        pageTools: era !== 'modern',
        route: (server) =>
          era === 'modern'
            ? new StatelessCalls(server, { states, waitingFor: (id) => backend.waitingFor?.(id), roots: STDIO_ROOTS })
            : new SessionCalls(server, {
                sessionId: () => sessionId,
                backend,
                states,
                roots: STDIO_ROOTS,
                open: async (clientName, roots, workspace) => {
                  await backend.openSession(sessionId, { clientName, roots, workspace, owner: 'stdio' });
                  opened = true;
                },
              }),
      }),
    { transport, onerror: (error) => log(`stdio: ${error.message}`) },
  );
  backend.onNotice?.((notice) => log(describeNotice(notice).message));
  log(`browsermcp-gateway ${VERSION} on stdio; browser: ${describeBrowser(config)}`);
  if (backend instanceof ExtensionBackend) for (const line of pairingLines(config, backend.pairingCode)) log(line);
  await transport.done;
  await stdio.close().catch(() => undefined);
  if (opened) await backend.closeSession(sessionId).catch(() => undefined);
  await backend.close();
}

/**
 * How the person connects their browser, for the banner: install once, then pair once with the code (which also
 * says where this daemon listens, so a port other than the default needs nothing more).
 */
export function pairingLines(config: GatewayConfig, code: string): string[] {
  return [
    'Your browser: install the extension once (chrome://extensions → Developer mode → Load unpacked → apps/extension/dist),',
    `then pair it once: paste this code into the extension's popup and press Pair (the secret is kept in ${config.pairingFile}):`,
    `  ${code}`,
    'Each agent gets its own tab group; you approve each new agent in the popup.',
  ];
}

/** What stopping the gateway closes, in this mode: the person's browser and a browser at --cdp-endpoint stay open. */
export function shutdownLine(config: GatewayConfig): string {
  if (config.daemonUrls.length) return "closing this gateway's sessions on the remote daemon (its browsers stay)…";
  if (config.extension) return "closing the agents' sessions and their tab groups; your browser stays open…";
  if (config.cdpEndpoint) return `closing the sessions and their tabs; the browser at ${config.cdpEndpoint} stays open…`;
  return 'closing the sessions and the browser it launched…';
}

/** One line on which browser the tools drive, for the startup banner. */
export function describeBrowser(config: GatewayConfig): string {
  if (config.daemonUrls.length)
    return `on the remote daemon ${config.daemonUrls.join(', ')}${config.daemonBrowser ? ` (browser ${config.daemonBrowser})` : ''}`;
  if (config.extension) return `your own, through the extension at ws://127.0.0.1:${config.daemonPort}/extension`;
  if (config.cdpEndpoint) return `connects to ${config.cdpEndpoint}`;
  const chrome = chromeToLaunch(config.executablePath);
  if ('problem' in chrome) return `NONE: ${chrome.problem}`;
  const idle = config.idleTimeoutMs ? `, closed after ${formatDuration(config.idleTimeoutMs)} without a call (--idle-timeout)` : '';
  return `${chrome.path}${config.browserChannel ? ` (--browser ${config.browserChannel})` : ''}, launched on first use, ${config.headlessReason}${idle}`;
}

/** This machine's host name and non-loopback addresses, when `host` binds every interface; else none. */
function ownNames(host: string): string[] {
  const v6 = host === '::' || host === '[::]';
  if (host !== '0.0.0.0' && !v6) return [];
  const addresses = Object.values(networkInterfaces())
    .flat()
    .flatMap((i) => (!i || i.internal ? [] : i.family === 'IPv4' ? [i.address] : v6 && !i.address.startsWith('fe80') ? [`[${i.address}]`] : []));
  return [hostname().toLowerCase(), ...addresses];
}
