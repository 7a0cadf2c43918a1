import { natsSettingsProblem } from './cluster/nats-connection.js';
import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { applyOldSpellings, addOldSpellings } from './cli-old-spellings.js';
import { DAEMON_NAME, parse, parseDuration, readSecret, type CliCommand } from './cli-command.js';

export type { CliCommand } from './cli-command.js';
export { buildNatsConfigProgram } from './cli-nats-config.js';
export { buildTokenProgram } from './cli-token.js';
import { parseNatsConfig } from './cli-nats-config.js';
import { parseToken } from './cli-token.js';
import { hs256Verifier, publicKeyVerifier, type TokenVerifier } from './server/auth.js';
import { DEFAULT_HEARTBEAT_MS, DEFAULT_PORT, isLoopbackHost } from './server/constants.js';
import type { StartDaemonOptions } from './daemon.js';
import { INSTANCE_ID_PATTERN } from './cluster/names.js';
import type { SessionSettings } from '@browsermcp/protocol';
import { sessionConfigFrom } from '@browsermcp/tools';
import { readToolFlags, toolOptions } from './tool-options.js';
import { DAEMON_SETTINGS } from './daemon-settings.js';
import { entryAttribute, readTable, tableOptions, type TableValues } from './setting-table.js';
import {
  applySettingSources,
  CDP_REFUSALS,
  ConfigError,
  connectionLimitsOf,
  readSharedSettings,
  serverFilePaths,
  settingOption,
  SettingValues,
  sharedOptions,
} from './command-line.js';

/** The daemon's flags: the shared settings (the gateway's spellings) and its own, each with BROWSERMCP_<FLAG>. */
export function buildDaemonProgram(): Command {
  const s = sharedOptions({
    port: { description: 'TCP port to listen on', default: DEFAULT_PORT },
    host: { description: 'address to bind; anything but loopback needs --auth-secret-file or --auth-public-key-file' },
    gracePeriodMs: { description: 'how long a disconnected browser keeps its sessions' },
    corsOrigins: { description: 'web origins whose pages may call the HTTP API (e.g. https://app.example.com), comma-separated (default: none)' },
    outputDir: { description: 'where the local browser saves screenshots, PDFs and GIFs (uploads are allowed from here too)' },
  });
  const d = tableOptions(DAEMON_SETTINGS);
  const program = new Command(DAEMON_NAME)
    .description(
      'Runs the browsermcp daemon: HTTP (/health, /sessions, /commands) and WebSocket (/extension, /mcp) endpoints. ' +
        'Every option can also be set as BROWSERMCP_<OPTION> or in the --config file; precedence: defaults < file < environment < flags.',
    )
    .addHelpText(
      'after',
      `\nAccess tokens for /mcp and /extension:\n  ${DAEMON_NAME} token --user <id> --secret-file <file> [--ttl 30d]   (${DAEMON_NAME} token --help)` +
        `\nA cluster's NATS users and permissions:\n  ${DAEMON_NAME} nats-config --instances d1,d2 --dir <dir>   (${DAEMON_NAME} nats-config --help)`,
    )
    .usage('[options]')
    .helpOption('-h, --help', 'show this help')
    .allowExcessArguments(false);
  const own = [
    s.port,
    s.host,
    d.authSecretFile,
    d.authPublicKeyFile,
    d.authMaxTokenLifetime,
    d.authAudience,
    d.maxSessionsPerUser,
    d.authIssuer,
    s.gracePeriodMs,
    s.maxBrowserStates,
    s.maxKeyMemoryMb,
    s.commandTimeoutMs,
    settingOption('--heartbeat <seconds>', 'seconds between WebSocket pings; a peer missing one pong is dropped').default(String(DEFAULT_HEARTBEAT_MS / 1000)),
    s.allowedHosts,
    s.corsOrigins,
    s.maxConnectionsPerAddress,
    s.requestTimeoutMs,
    s.pairingFile,
    s.extensionIds,
    d.nats,
    d.instanceId,
    d.natsNkeySeedFile,
    d.natsCredsFile,
    d.natsToken,
    d.natsTlsCa,
    d.natsTlsCert,
    d.natsTlsKey,
    d.natsAllowAnonymous,
    d.local,
    s.executablePath,
    s.browser,
    s.idleTimeout,
    s.headless,
    s.viewportSize,
    s.userDataDir,
    s.profileDirName,
    s.browserArg,
    s.sandbox,
    s.noSandbox,
    s.cdpEndpoint,
    s.sharedBrowserContext,
    s.outputDir,
    s.outputMaxBytes,
    s.filePaths,
    s.fileRoots,
    s.caps,
    // The tool flags: the daemon's own browser runs with them, and a remote client's sessions ask within them.
    ...toolOptions(),
    s.config,
    s.logLevel,
    new Option('-V, --version', 'print the version'),
  ];
  for (const option of own) program.addOption(option);
  addOldSpellings(program);
  return program;
}

/** The settings of the daemon's own browser (its launch, profile, contexts, files and memory), which mean nothing with --no-local. */
const LOCAL_BROWSER_FLAGS = [
  'executablePath',
  'browser',
  'idleTimeout',
  'headless',
  'viewportSize',
  'userDataDir',
  'profileDirName',
  'browserArg',
  'sandbox',
  'cdpEndpoint',
  'sharedBrowserContext',
  'outputDir',
  'outputMaxSize',
  'filePaths',
  'fileRoots',
  'maxKeyMemory',
] as const;

/** A number of seconds above 0, fractions allowed (--heartbeat), in ms; its option gives its default. */
function seconds(values: SettingValues, key: string): number {
  const text = values.str(key)!;
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0 || n * 1000 > 2_147_483_647) {
    throw new ConfigError(`${values.flag(key)} must be a number of seconds above 0, got "${text}".`);
  }
  return Math.round(n * 1000);
}

const NATS_URL = /^(nats|tls|ws|wss):\/\/[^\s,]+$|^[^\s,:/]+:\d+$/;

/** The flags that only mean something with --nats. */
const NATS_ONLY = ['instanceId', 'natsNkeySeedFile', 'natsCredsFile', 'natsToken', 'natsTlsCa', 'natsTlsCert', 'natsTlsKey', 'natsAllowAnonymous'] as const;

function readCluster(values: SettingValues, own: TableValues<typeof DAEMON_SETTINGS>): StartDaemonOptions['cluster'] {
  const { nats, instanceId } = own;
  if (nats === undefined) {
    const stray = NATS_ONLY.map((key) => entryAttribute(DAEMON_SETTINGS[key])).find((key) => values.given(key));
    if (stray !== undefined) throw new ConfigError(`${values.flag(stray)} is for a daemon in a cluster: it needs --nats <url> too`);
    return undefined;
  }
  const urls = nats.split(',').map((url) => url.trim());
  const bad = urls.find((url) => !NATS_URL.test(url));
  if (bad !== undefined) throw new ConfigError(`--nats "${bad}" is not a NATS URL; use nats://host:port (comma-separated for several)`);
  if (instanceId !== undefined && !INSTANCE_ID_PATTERN.test(instanceId)) {
    throw new ConfigError(`--instance-id "${instanceId}" must be 1-64 letters, digits, - or _`);
  }
  const file = (key: 'natsNkeySeedFile' | 'natsCredsFile' | 'natsTlsCa' | 'natsTlsCert' | 'natsTlsKey') => {
    const path = own[key];
    if (path === undefined) return undefined;
    try {
      return readFileSync(path, 'utf8');
    } catch (error) {
      throw new ConfigError(`--${DAEMON_SETTINGS[key].flag} ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
  };
  const readable = (key: 'natsTlsCa' | 'natsTlsCert' | 'natsTlsKey') => (file(key) === undefined ? undefined : own[key]);
  const credentials = { nkeySeed: file('natsNkeySeedFile'), creds: file('natsCredsFile'), token: own.natsToken };
  const given = Object.entries(credentials).filter(([, value]) => value !== undefined);
  const tls = { caFile: readable('natsTlsCa'), certFile: readable('natsTlsCert'), keyFile: readable('natsTlsKey') };
  const settings = {
    nats: urls.join(','),
    ...(instanceId !== undefined ? { instanceId } : {}),
    ...(given.length ? { credentials: Object.fromEntries(given) } : {}),
    ...(Object.values(tls).some((v) => v !== undefined) ? { tls } : {}),
    ...(own.natsAllowAnonymous ? { allowAnonymous: true } : {}),
  };
  const problem = natsSettingsProblem({ ...settings, url: settings.nats });
  if (problem !== undefined) throw new ConfigError(problem);
  return settings;
}

/**
 * Reads the command line, the BROWSERMCP_* environment and the --config file; throws ConfigError naming the flag and
 * the fix for a bad value. `env` is asked only whether a display exists (commander reads the variables itself).
 */
export function parseCli(argv: string[], env: NodeJS.ProcessEnv = process.env): CliCommand {
  if (argv[0] === 'token') return parseToken(argv.slice(1));
  if (argv[0] === 'nats-config') return parseNatsConfig(argv.slice(1));
  const program = buildDaemonProgram();
  const help = parse(program, argv);
  if (help !== undefined) return { kind: 'help', text: help };
  const values = new SettingValues(program);
  if (values.bool('version')) return { kind: 'version' };
  const { notes, headed } = applyOldSpellings(program, values);
  applySettingSources(program);
  const shared = readSharedSettings(values, env);
  // The old --headed sets no setting of its own: refused where a window means nothing, as --headless is.
  if (headed && shared.cdpEndpoint) throw new ConfigError(CDP_REFUSALS.launchFlags(['--headed']));
  const tools = readToolFlags(values, shared.commandTimeoutMs);
  // What the operator set (and --caps when given): every session's settings are taken within them (settingsWithin).
  const own: SessionSettings = { ...tools.given, ...(values.given('caps') ? { caps: shared.caps } : {}) };
  const daemon = readTable(values, DAEMON_SETTINGS);

  const host = shared.host;
  const secret = daemon.authSecretFile ? readSecret(daemon.authSecretFile, 'auth-secret-file') : undefined;
  const publicKey = daemon.authPublicKeyFile ? readSecret(daemon.authPublicKeyFile, 'auth-public-key-file') : undefined;
  if (secret && publicKey) throw new ConfigError('--auth-secret-file and --auth-public-key-file are two ways to check tokens: pick one');
  const rules = {
    maxLifetimeSeconds: parseDuration(daemon.authMaxTokenLifetime, 'auth-max-token-lifetime'),
    audience: daemon.authAudience,
    issuer: daemon.authIssuer,
  };
  if (!secret && !publicKey) {
    // Without a way to check tokens there are no users: what shapes tokens and users would shape nothing.
    const tokenOnly = (['authAudience', 'authIssuer', 'authMaxTokenLifetime', 'maxSessionsPerUser'] as const).filter((key) =>
      values.given(entryAttribute(DAEMON_SETTINGS[key])),
    );
    if (tokenOnly.length) {
      throw new ConfigError(
        `${tokenOnly.map((key) => `--${DAEMON_SETTINGS[key].flag}`).join(' and ')} check access tokens and their users: add --auth-secret-file or --auth-public-key-file`,
      );
    }
  }
  let verifier: TokenVerifier | undefined;
  try {
    verifier = secret ? hs256Verifier(secret, rules) : publicKey ? publicKeyVerifier(publicKey, rules) : undefined;
  } catch (error) {
    throw new ConfigError(`--${secret ? 'auth-secret-file' : 'auth-public-key-file'}: ${(error as Error).message}`);
  }
  if (!secret && !publicKey && !isLoopbackHost(host)) {
    throw new ConfigError(`--host ${host} exposes the daemon beyond this machine; set --auth-secret-file (or --auth-public-key-file) too`);
  }

  const { extensionIds } = shared;
  const cluster = readCluster(values, daemon);

  // --no-local sets local=false in commander (its default is true): the flags that shape the local browser then shape
  // nothing, and are refused rather than ignored.
  if (!daemon.local) {
    const stray = LOCAL_BROWSER_FLAGS.filter((key) => values.given(key)).map((key) => values.flag(key));
    if (headed) stray.push('--headed');
    if (stray.length)
      throw new ConfigError(
        `--no-local runs without a local browser, so ${stray.join(', ')} cannot apply. Drop ${stray.length > 1 ? 'them' : 'it'}, or drop --no-local.`,
      );
  }
  if (!isLoopbackHost(host) && values.given('pairingFile')) {
    throw new ConfigError(
      `--pairing-file holds the secret an extension on this machine pairs with; a daemon on ${host} is reached over TLS with a token instead (browsermcp-daemon token). Drop --pairing-file.`,
    );
  }
  const local = !daemon.local
    ? null
    : {
        outputDir: shared.outputDir,
        executablePath: shared.executablePath,
        // The old --headed forces a window, as it did before.
        headless: headed ? false : shared.headless,
        viewport: shared.viewport,
        userDataDir: shared.userDataDir,
        browserArgs: shared.browserArgs,
        sandbox: shared.sandbox,
        cdpEndpoint: shared.cdpEndpoint,
        sharedBrowserContext: shared.sharedBrowserContext,
        fileRoots: shared.fileRoots,
        protectedPaths: serverFilePaths(program),
        outputMaxBytes: shared.outputMaxBytes,
        filePaths: shared.filePaths,
        idleTimeoutMs: shared.idleTimeoutMs,
        maxKeyMemoryMb: shared.maxKeyMemoryMb,
        caps: shared.caps,
        toolConfig: sessionConfigFrom(tools.settings),
      };
  return {
    kind: 'serve',
    verifier,
    // On this machine an extension pairs (without auth it must: nothing else says who it is), and so learns that this
    // is the daemon it paired with; a daemon bound beyond loopback is reached over TLS with a token instead.
    pairingFile: isLoopbackHost(host) ? shared.pairingFile : undefined,
    logLevel: shared.logLevel,
    deprecations: notes,
    options: {
      host,
      port: shared.port ?? DEFAULT_PORT,
      gracePeriodMs: shared.gracePeriodMs,
      commandTimeoutMs: tools.commandTimeoutMs,
      heartbeatMs: seconds(values, 'heartbeat'),
      maxSessionsPerUser: daemon.maxSessionsPerUser,
      maxBrowserStates: shared.maxBrowserStates,
      allowedHosts: shared.allowedHosts,
      corsOrigins: shared.corsOrigins,
      connectionLimits: connectionLimitsOf(shared),
      ...(extensionIds.length ? { extensionIds } : {}),
      ...(cluster ? { cluster } : {}),
      ...(Object.keys(own).length ? { sessionSettings: own } : {}),
      local,
    },
  };
}
