import { natsSettingsProblem } from './cluster/nats-connection.js';
import { readFileSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import { hs256Verifier, publicKeyVerifier, type TokenVerifier } from './server/auth.js';
import { DEFAULT_HEARTBEAT_MS, DEFAULT_PORT, EXTENSION_ID, isLoopbackHost } from './server/constants.js';
import type { StartDaemonOptions } from './daemon.js';
import { DEFAULT_MAX_SESSIONS_PER_USER } from './router/index.js';
import { INSTANCE_ID_PATTERN } from './cluster/names.js';
import type { SessionSettings } from '@browsermcp/protocol';
import { sessionConfigFrom } from '@browsermcp/tools';
import { readToolFlags, toolOptions } from './tool-options.js';
import {
  applySettingSources,
  ConfigError,
  readSharedSettings,
  repeatableOption,
  serverFile,
  serverFilePaths,
  settingOption,
  SettingValues,
  sharedOptions,
  type SharedSettingKey,
} from './command-line.js';

const NAME = 'browsermcp-daemon';

/** The daemon's flags: the shared settings (the gateway's spellings) and its own, each with BROWSERMCP_<FLAG>. */
export function buildDaemonProgram(): Command {
  const s = sharedOptions({
    port: { description: 'TCP port to listen on', default: String(DEFAULT_PORT) },
    host: { description: 'address to bind; anything but loopback needs --auth-secret-file or --auth-public-key-file' },
    gracePeriod: { description: 'how long a disconnected browser keeps its sessions' },
    corsOrigins: { description: 'web origins whose pages may call the HTTP API (e.g. https://app.example.com), comma-separated (default: none)' },
    outputDir: { description: 'where the local browser saves screenshots, PDFs and GIFs (uploads are allowed from here too)' },
  });
  const program = new Command(NAME)
    .description(
      'Runs the browsermcp daemon: HTTP (/health, /sessions, /commands) and WebSocket (/extension, /mcp) endpoints. ' +
        'Every option can also be set as BROWSERMCP_<OPTION> or in the --config file; precedence: defaults < file < environment < flags.',
    )
    .addHelpText(
      'after',
      `\nAccess tokens for /mcp and /extension:\n  ${NAME} token --user <id> --secret-file <file> [--ttl 30d]   (${NAME} token --help)` +
        `\nA cluster's NATS users and permissions:\n  ${NAME} nats-config --instances d1,d2 --dir <dir>   (${NAME} nats-config --help)`,
    )
    .usage('[options]')
    .helpOption('-h, --help', 'show this help')
    .allowExcessArguments(false);
  const own = [
    s.port,
    s.host,
    serverFile(settingOption('--auth-secret-file <file>', 'file with the HS256 secret (≥ 32 bytes) that access tokens are signed with (default: none: no auth)')),
    serverFile(settingOption('--auth-public-key-file <file>', 'PEM public key (RSA → RS256, EC P-256 → ES256) of whoever signs the access tokens, instead of a shared secret (default: none)')),
    settingOption('--auth-max-token-lifetime <duration>', 'the longest an access token may still live (its "exp" from now): seconds, or a number with s, m, h or d').default('90d'),
    settingOption('--auth-audience <aud>', 'the "aud" every access token must name, e.g. this relay\'s URL (default: none: not checked)'),
    settingOption('--max-sessions-per-user <n>', 'most sessions one user (the "sub" of their token) may have open at once; more are refused (429)').default(String(DEFAULT_MAX_SESSIONS_PER_USER)),
    settingOption('--auth-issuer <iss>', 'the "iss" every access token must name: whoever signs them (default: none: not checked)'),
    s.gracePeriod,
    s.maxBrowserStates,
    s.commandTimeout,
    settingOption('--heartbeat <seconds>', 'seconds between WebSocket pings; a peer missing one pong is dropped').default(String(DEFAULT_HEARTBEAT_MS / 1000)),
    s.allowedHosts,
    s.corsOrigins,
    s.maxConnectionsPerAddress,
    s.requestTimeout,
    s.pairingFile,
    repeatableOption('--extension-id <id>', `a Chrome extension id that may connect to /extension; repeat for more (default: ${EXTENSION_ID})`),
    settingOption('--nats <urls>', 'join a cluster of daemons on NATS with JetStream, e.g. nats://127.0.0.1:4222 (comma-separated for several servers) (default: none: state stays in this process)'),
    settingOption('--instance-id <id>', "this daemon's id in the cluster: 1-64 letters, digits, - or _ (default: random, printed at start)"),
    serverFile(settingOption('--nats-nkey-seed-file <file>', "file with this daemon's NATS nkey seed, as `browsermcp-daemon nats-config` writes it (default: none)")),
    serverFile(settingOption('--nats-creds-file <file>', 'NATS .creds file (user JWT and seed) for a server in operator mode (default: none)')),
    settingOption('--nats-token <token>', "NATS token; prefer the environment variable, which ps does not show (default: none; a user and password may sit in --nats's URL)"),
    serverFile(settingOption('--nats-tls-ca <file>', "PEM CA certificate that signed NATS's (default: the system's)")),
    serverFile(settingOption('--nats-tls-cert <file>', 'PEM client certificate, for a NATS that asks for one; with --nats-tls-key (default: none)')),
    serverFile(settingOption('--nats-tls-key <file>', "the client certificate's PEM key (default: none)")),
    settingOption('--nats-allow-anonymous', 'join a NATS that lets anyone connect without credentials: whoever reaches it could read and drive every session (default: refused)'),
    settingOption('--no-local', 'run without the local browser: extensions only (default: a local browser)'),
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
    s.outputMaxSize,
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
  // Hidden, without a variable or config key: they exist only so that old command lines keep working.
  for (const old of OLD_SPELLINGS) {
    const option = new Option(old.flags).hideHelp();
    program.addOption(old.flags.includes('<') ? option.argParser(collect) : option);
  }
  return program;
}

/** Keeps every value of an old spelling; applyOldSpellings takes the last for a single-valued one. */
const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

/**
 * The daemon's spellings before it took the gateway's: they still work for one release, each with one deprecation
 * line. `--headed` has no new spelling: headed is the default when a display exists.
 */
interface OldSpelling {
  flags: string;
  /** The setting it now sets; undefined for --headed. */
  key: SharedSettingKey | undefined;
  /** It took one value per use, all kept; else the last one counts, as it did. */
  repeated?: boolean;
  note: string;
}

const gone = 'is deprecated and will be removed in the next release';
const OLD_SPELLINGS: readonly OldSpelling[] = [
  { flags: '--headed', key: undefined, note: `--headed ${gone}: the browser is headed by default when a display exists (--headless hides it); drop --headed` },
  { flags: '--viewport <WxH>', key: 'viewportSize', note: `--viewport ${gone}: use --viewport-size` },
  { flags: '--file-root <dir>', key: 'fileRoots', repeated: true, note: `--file-root ${gone}: use --file-roots (one comma-separated list)` },
  { flags: '--allowed-host <host>', key: 'allowedHosts', repeated: true, note: `--allowed-host ${gone}: use --allowed-hosts (one comma-separated list)` },
  { flags: '--allowed-origin <origin>', key: 'corsOrigins', repeated: true, note: `--allowed-origin ${gone}: use --cors-origins (one comma-separated list)` },
];

export type CliCommand =
  | { kind: 'help'; text: string }
  | { kind: 'version' }
  | { kind: 'nats-config'; dir: string; instances: string[] }
  | { kind: 'token'; userId: string; secret: string; ttlSeconds: number; audience: string | undefined; issuer: string | undefined }
  | {
      kind: 'serve';
      options: StartDaemonOptions;
      verifier: TokenVerifier | undefined;
      /** Where the pairing secret is kept, on loopback: extensions pair (required without auth). */
      pairingFile: string | undefined;
      logLevel: string;
      /** One line per old spelling used, naming the new one: the CLI prints them to stderr. */
      deprecations: string[];
    };

/**
 * Parses argv with commander, without letting it print or exit: help text comes back as a value, and commander's own
 * complaints (an unknown flag, a missing value) become ConfigErrors like every other bad value.
 */
function parse(program: Command, argv: string[]): string | undefined {
  let out = '';
  program.exitOverride().configureOutput({ writeOut: (text) => (out += text), writeErr: () => undefined });
  try {
    program.parse(argv, { from: 'user' });
    return undefined;
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.help') return out;
    throw new ConfigError(`${error.message.replace(/^error: /, '')}; run ${program.name()} --help for every option`);
  }
}

/** Folds the old spellings into the settings they name; both spellings of one setting on the command line is an error. */
function applyOldSpellings(program: Command, values: SettingValues): { notes: string[]; headed: boolean } {
  const notes: string[] = [];
  let headed = false;
  for (const old of OLD_SPELLINGS) {
    const oldKey = program.options.find((o) => o.flags === old.flags)!.attributeName();
    const given = values.raw(oldKey) as string[] | true | undefined;
    if (given === undefined) continue;
    notes.push(old.note);
    const key = old.key ?? 'headless';
    if (values.source(key) === 'cli') {
      throw new ConfigError(
        old.key
          ? `${values.flag(oldKey)} and ${values.flag(key)} are one setting (${values.flag(oldKey)} is its old name): keep ${values.flag(key)}`
          : '--headed and --headless contradict each other: keep one (--headed is deprecated; without --headless the browser is headed when a display exists)',
      );
    }
    if (!old.key) headed = true;
    else if (Array.isArray(given)) program.setOptionValueWithSource(old.key, old.repeated ? given : given.at(-1), 'cli');
  }
  return { notes, headed };
}

function seconds(values: SettingValues, key: string, fallbackMs: number): number {
  const text = values.str(key);
  if (text === undefined) return fallbackMs;
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0 || n * 1000 > 2_147_483_647) {
    throw new ConfigError(`${values.flag(key)} must be a number of seconds above 0, got "${text}".`);
  }
  return Math.round(n * 1000);
}

const NATS_URL = /^(nats|tls|ws|wss):\/\/[^\s,]+$|^[^\s,:/]+:\d+$/;

function readCluster(values: SettingValues): StartDaemonOptions['cluster'] {
  const nats = values.str('nats');
  const instanceId = values.str('instanceId');
  const natsOnly = ['natsNkeySeedFile', 'natsCredsFile', 'natsToken', 'natsTlsCa', 'natsTlsCert', 'natsTlsKey', 'natsAllowAnonymous'];
  if (nats === undefined) {
    const stray = ['instanceId', ...natsOnly].find((key) => values.given(key));
    if (stray !== undefined) throw new ConfigError(`${values.flag(stray)} is for a daemon in a cluster: it needs --nats <url> too`);
    return undefined;
  }
  const urls = nats.split(',').map((url) => url.trim());
  const bad = urls.find((url) => !NATS_URL.test(url));
  if (bad !== undefined) throw new ConfigError(`${values.flag('nats')} "${bad}" is not a NATS URL; use nats://host:port (comma-separated for several)`);
  if (instanceId !== undefined && !INSTANCE_ID_PATTERN.test(instanceId)) {
    throw new ConfigError(`${values.flag('instanceId')} "${instanceId}" must be 1-64 letters, digits, - or _`);
  }
  const file = (key: string) => {
    const path = values.str(key);
    if (path === undefined) return undefined;
    try {
      return readFileSync(path, 'utf8');
    } catch (error) {
      throw new ConfigError(`${values.flag(key)} ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
  };
  const readable = (key: string) => (file(key) === undefined ? undefined : values.str(key));
  const credentials = { nkeySeed: file('natsNkeySeedFile'), creds: file('natsCredsFile'), token: values.str('natsToken') };
  const given = Object.entries(credentials).filter(([, value]) => value !== undefined);
  const tls = { caFile: readable('natsTlsCa'), certFile: readable('natsTlsCert'), keyFile: readable('natsTlsKey') };
  const settings = {
    nats: urls.join(','),
    ...(instanceId !== undefined ? { instanceId } : {}),
    ...(given.length ? { credentials: Object.fromEntries(given) } : {}),
    ...(Object.values(tls).some((v) => v !== undefined) ? { tls } : {}),
    ...(values.bool('natsAllowAnonymous') ? { allowAnonymous: true } : {}),
  };
  const problem = natsSettingsProblem({ ...settings, url: settings.nats });
  if (problem !== undefined) throw new ConfigError(problem);
  return settings;
}

function readSecret(path: string, flag: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch (error) {
    throw new ConfigError(`--${flag} ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  if (Buffer.byteLength(text) < 32) throw new ConfigError(`--${flag} ${path} must hold at least 32 bytes; create one with: openssl rand -hex 32 > ${path}`);
  return text;
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
  const tools = readToolFlags(values, shared.commandTimeoutMs);
  // What the operator set (and --caps when given): every session's settings are taken within them (settingsWithin).
  const own: SessionSettings = { ...tools.given, ...(values.given('caps') ? { caps: shared.caps } : {}) };

  const host = shared.host;
  const secretFile = values.str('authSecretFile');
  const secret = secretFile ? readSecret(secretFile, 'auth-secret-file') : undefined;
  const publicKeyFile = values.str('authPublicKeyFile');
  const publicKey = publicKeyFile ? readSecret(publicKeyFile, 'auth-public-key-file') : undefined;
  if (secret && publicKey) throw new ConfigError('--auth-secret-file and --auth-public-key-file are two ways to check tokens: pick one');
  const rules = {
    maxLifetimeSeconds: parseDuration(values.str('authMaxTokenLifetime') ?? '90d', 'auth-max-token-lifetime'),
    audience: values.str('authAudience'),
    issuer: values.str('authIssuer'),
  };
  if (!secret && !publicKey && (rules.audience !== undefined || rules.issuer !== undefined)) {
    throw new ConfigError('--auth-audience and --auth-issuer check access tokens: add --auth-secret-file or --auth-public-key-file');
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

  const extensionIds = values.many('extensionId');
  const cluster = readCluster(values);

  // --no-local sets local=false in commander (its default is true).
  const local = !values.bool('local')
    ? null
    : {
        outputDir: shared.outputDir,
        executablePath: shared.executablePath,
        // The old --headed forces a window, as it did before.
        headless: headed ? false : shared.headless,
        viewport: shared.viewport,
        userDataDir: shared.userDataDir,
        args: shared.browserArgs,
        sandbox: shared.sandbox,
        cdpEndpoint: shared.cdpEndpoint,
        sharedBrowserContext: shared.sharedBrowserContext,
        fileRoots: shared.fileRoots,
        protectedPaths: serverFilePaths(program),
        maxOutputBytes: shared.outputMaxBytes,
        filePaths: shared.filePaths,
        idleTimeoutMs: shared.idleTimeoutMs,
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
      graceMs: shared.gracePeriodMs,
      commandTimeoutMs: tools.commandTimeoutMs,
      heartbeatMs: seconds(values, 'heartbeat', DEFAULT_HEARTBEAT_MS),
      maxSessionsPerUser: values.int('maxSessionsPerUser', 1, 100_000) ?? DEFAULT_MAX_SESSIONS_PER_USER,
      maxKeptStates: shared.maxBrowserStates,
      allowedHosts: shared.allowedHosts,
      allowedOrigins: shared.corsOrigins,
      connectionLimits: shared.connectionLimits,
      ...(extensionIds.length ? { extensionIds } : {}),
      ...(cluster ? { cluster } : {}),
      ...(Object.keys(own).length ? { sessionSettings: own } : {}),
      local,
    },
  };
}

/** `browsermcp-daemon token`: its flags are its own (no environment: a token is made by hand). */
export function buildTokenProgram(): Command {
  return new Command(`${NAME} token`)
    .description('Prints an access token for /mcp and /extension.')
    .usage('--user <id> --secret-file <file> [--ttl 30d]')
    .helpOption('-h, --help', 'show this help')
    .allowExcessArguments(false)
    .addOption(new Option('--user <id>', 'the user id the token names (its "sub") (default: none: required)'))
    .addOption(new Option('--secret-file <file>', "the daemon's --auth-secret-file (default: none: required)"))
    .addOption(new Option('--ttl <duration>', "lifetime: seconds, or a number with s, m, h or d (at most the daemon's --auth-max-token-lifetime)").default('30d'))
    .addOption(new Option('--audience <aud>', "the token's \"aud\", for a daemon with --auth-audience (default: none)"))
    .addOption(new Option('--issuer <iss>', "the token's \"iss\", for a daemon with --auth-issuer (default: none)"));
}

/** `browsermcp-daemon nats-config`: writes a NATS server config and one nkey seed per daemon. */
export function buildNatsConfigProgram(): Command {
  return new Command(`${NAME} nats-config`)
    .description("Writes a least-privilege NATS setup for a cluster: the server's config (an account, one nkey user per daemon, its permissions) and each daemon's seed file.")
    .usage('--instances d1,d2,d3 --dir <dir>')
    .helpOption('-h, --help', 'show this help')
    .allowExcessArguments(false)
    .addOption(new Option('--instances <ids>', "the daemons' --instance-id values, comma-separated (default: none: required)"))
    .addOption(new Option('--dir <dir>', 'where to write nats.conf and the <id>.nk seed files; made 0700, must not hold them already (default: none: required)'));
}

function parseNatsConfig(argv: string[]): CliCommand {
  const program = buildNatsConfigProgram();
  const help = parse(program, argv);
  if (help !== undefined) return { kind: 'help', text: help };
  const values = new SettingValues(program);
  const instances = values.list('instances');
  if (instances.length === 0) throw new ConfigError('nats-config needs --instances <ids>: the --instance-id of each daemon, comma-separated');
  const bad = instances.find((id) => !INSTANCE_ID_PATTERN.test(id));
  if (bad !== undefined) throw new ConfigError(`--instances: "${bad}" must be 1-64 letters, digits, - or _`);
  if (new Set(instances).size !== instances.length) throw new ConfigError('--instances names a daemon twice');
  const dir = values.str('dir');
  if (!dir) throw new ConfigError('nats-config needs --dir <dir>: where to write nats.conf and the seed files');
  return { kind: 'nats-config', dir, instances };
}

/** Seconds from "90", "90s", "15m", "12h" or "30d"; `flag` names the option in the error. */
function parseDuration(text: string, flag: string): number {
  const m = /^(\d+)([smhd]?)$/.exec(text);
  if (!m || Number(m[1]) === 0) throw new ConfigError(`--${flag} must be a positive number of seconds, or a number with s, m, h or d such as 12h (got "${text}")`);
  return Number(m[1]) * { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[m[2] as '' | 's' | 'm' | 'h' | 'd'];
}

function parseToken(argv: string[]): CliCommand {
  const program = buildTokenProgram();
  const help = parse(program, argv);
  if (help !== undefined) return { kind: 'help', text: help };
  const values = new SettingValues(program);
  const userId = values.str('user');
  if (!userId) throw new ConfigError('token needs --user <id>');
  const secretFile = values.str('secretFile');
  if (!secretFile) throw new ConfigError("token needs --secret-file <file> (the daemon's --auth-secret-file)");
  return {
    kind: 'token',
    userId,
    secret: readSecret(secretFile, 'secret-file'),
    ttlSeconds: parseDuration(values.str('ttl') ?? '30d', 'ttl'),
    audience: values.str('audience'),
    issuer: values.str('issuer'),
  };
}
