/**
 * The gateway's command line: every flag with its environment variable (BROWSERMCP_<FLAG>), its default for --help,
 * and the modes it applies in (config/modes.ts).
 */
import { Command, type Option } from 'commander';
import { CDP_REFUSALS, EXTENSION_ID, repeatableOption, serverFile, settingOption, sharedOptions, toolOptions } from '@browsermcp/daemon';
import { VERSION } from '../version.js';
import { appliesIn, cdpOnly, LAUNCHED, LOCAL_BROWSER, LOCAL_FILES, overHttp } from './modes.js';
import { ownOptions, STATELESS_STATE_KEEP_MS } from './own-settings.js';

const CDP_LAUNCH_SETTINGS =
  '--proxy-server and --ignore-https-errors are set when browsermcp launches the browser; with --cdp-endpoint, start your browser with them instead.';

/** Every flag, its environment variable (BROWSERMCP_<FLAG>) and its default, in one table for --help. */
function options(): Option[] {
  const opt = settingOption;
  const own = ownOptions();
  const s = sharedOptions({
    port: { description: 'serve MCP over HTTP on this port (Streamable HTTP at /mcp, legacy SSE at /sse) (default: none: stdio)' },
    corsOrigins: { description: 'web origins allowed to call the gateway (for @browsermcp/client), comma-separated (default: none)' },
    outputDir: {
      description:
        "where screenshots, PDFs and GIFs are saved, each API key in a private directory of its own, which it may upload from too (with --daemon-url the daemon saves them: here only --save-session's records)",
    },
    fileRoots: {
      description:
        "directories uploads and storage states may be read from, comma-separated; over HTTP a client's MCP roots count only inside them (stdio: the client's roots, else the working directory; HTTP on loopback with one key and no roots: the working directory) (default: none)",
    },
    extensionIds: {
      description: `with --extension: the extension ids that may connect, comma-separated, e.g. the Chrome Web Store's (default: ${EXTENSION_ID}, the development build)`,
    },
    gracePeriodMs: { description: 'how long a session outlives a dropped legacy SSE stream (and, with --extension, a disconnected browser)' },
  });
  // --cdp-endpoint, --extension and --daemon-url choose the mode (MODES): each applies in its own mode only.
  return [
    s.port,
    overHttp(s.host),
    appliesIn(s.headless, LAUNCHED),
    appliesIn(s.executablePath, LAUNCHED),
    // The daemon's own command line refuses these two with --cdp-endpoint in the same words.
    appliesIn(s.browser, LAUNCHED, { cdp: CDP_REFUSALS.browser }),
    appliesIn(s.idleTimeout, LAUNCHED, { cdp: CDP_REFUSALS.idleTimeout }),
    appliesIn(s.browserArg, LAUNCHED),
    appliesIn(s.sandbox, LAUNCHED),
    appliesIn(s.noSandbox, LAUNCHED),
    s.cdpEndpoint,
    appliesIn(
      repeatableOption('--cdp-header <header>', 'with --cdp-endpoint: a header sent with every request to it, "Name: value"; repeat for more (default: none)'),
      ['cdp'],
      cdpOnly('--cdp-header'),
    ),
    own.cdpTimeoutMs,
    appliesIn(s.userDataDir, LOCAL_BROWSER),
    appliesIn(s.profileDirName, LAUNCHED),
    appliesIn(
      opt('--isolated', "@playwright/mcp's: a fresh profile for this run, thrown away when the browser closes (the default unless --user-data-dir is given)"),
      LAUNCHED,
    ),
    appliesIn(s.viewportSize, LOCAL_BROWSER),
    s.caps,
    appliesIn(s.sharedBrowserContext, LOCAL_BROWSER),
    overHttp(s.allowedHosts),
    // The tool flags travel with each session, applied by the daemon within its own settings: every mode.
    ...toolOptions(),
    s.config,
    s.outputDir,
    // With --daemon-url these two shape only --save-session's records (config/gateway-config.ts says so).
    s.outputMaxBytes,
    appliesIn(s.filePaths, LOCAL_FILES),
    appliesIn(s.fileRoots, LOCAL_FILES),
    own.allowUnrestrictedFileAccess,
    own.trustClientRoots,
    own.extension,
    own.daemonPort,
    appliesIn(s.extensionIds, ['extension'], '--extension-id names the extension that drives your own browser: add --extension, or drop --extension-id.'),
    opt(
      '--daemon-url <urls>',
      'use a remote daemon (ws://host:port/mcp; wss:// off loopback) instead of the embedded one; comma-separated daemons of a cluster are tried in turn when one drops (default: the embedded one)',
    ),
    own.daemonToken,
    own.daemonBrowser,
    overHttp(
      opt(
        '--api-key <keys>',
        'bearer key(s) HTTP clients must send, comma-separated or repeated; a session only works with the key that opened it (default: a random key, printed at startup)',
      )
        // Repeated, every key counts (commander would keep only the last one, silently).
        .argParser((value: string, previous: string | undefined) => (previous ? `${previous},${value}` : value)),
    ),
    overHttp(opt('--no-auth', 'serve HTTP without a key, only allowed on a loopback host (default: a key is required)')),
    overHttp(s.corsOrigins),
    overHttp(s.maxConnectionsPerAddress),
    overHttp(s.requestTimeoutMs),
    appliesIn(
      s.pairingFile,
      ['extension'],
      "--pairing-file holds the secret your browser's extension pairs with, with --extension: add --extension, or drop --pairing-file.",
    ),
    overHttp(
      opt(
        '--trust-proxy <value>',
        'behind a reverse proxy: whose X-Forwarded-For gives the client address (for --rate-limit and logs): true (any), a hop count, or proxy addresses/CIDRs, comma-separated (default: none)',
      ),
    ),
    overHttp(
      serverFile(opt('--api-key-file <file>', 'file with the bearer key(s), one per line ("#" comments); like --api-key, and never printed (default: none)')),
    ),
    own.rateLimit,
    s.gracePeriodMs,
    appliesIn(
      s.maxBrowserStates,
      ['launch', 'cdp', 'extension'],
      "--max-browser-states bounds the states this gateway's own daemon keeps; with --daemon-url the daemon keeps them: set --max-browser-states on browsermcp-daemon.",
    ),
    appliesIn(
      s.maxKeyMemoryMb,
      ['launch', 'cdp'],
      "--max-key-memory bounds what each key's tabs hold in this gateway's own browser; with --extension the browser is the person's (--max-tab-memory bounds each tab there), and with --daemon-url set --max-key-memory on browsermcp-daemon.",
    ),
    own.sessionIdleMs,
    own.progressIntervalMs,
    own.saveSession,
    opt(
      '--keep-browser-state <minutes>',
      `sessions opened with the same API key share one browser state (cookies, storage, tabs) that outlives each session this long, for clients that open a session per call (default: none: each session starts fresh; a 2026-07-28 client's state is kept ${STATELESS_STATE_KEEP_MS / 60_000} minutes)`,
    ),
    s.commandTimeoutMs,
    appliesIn(opt('--user-agent <ua>', "the user agent pages see (default: the browser's own)"), LOCAL_BROWSER),
    appliesIn(
      opt('--device <name>', 'emulate a device from puppeteer\'s list, e.g. "iPhone 15" or "Pixel 5": its viewport, touch and user agent (default: none)'),
      LOCAL_BROWSER,
    ),
    appliesIn(opt('--mobile', 'emulate a generic phone (Pixel 5); not with --device (default: off)'), LOCAL_BROWSER),
    appliesIn(
      serverFile(opt('--init-script <files>', 'JavaScript files run in every page before its own scripts, comma-separated (default: none)')),
      LOCAL_BROWSER,
    ),
    appliesIn(
      opt('--grant-permissions <list>', 'permissions granted to every site, comma-separated, e.g. geolocation,clipboard-read (default: none)'),
      LOCAL_BROWSER,
    ),
    appliesIn(opt('--block-service-workers', 'pages cannot register service workers (default: off)'), LOCAL_BROWSER),
    appliesIn(
      serverFile(
        opt('--storage-state <file>', "Playwright storage state (JSON: cookies and localStorage) each session's browser context starts with (default: none)"),
      ),
      LOCAL_BROWSER,
    ),
    appliesIn(
      serverFile(
        opt(
          '--secrets <file>',
          "dotenv file of secrets: a secret's name typed or filled is replaced by its value in the page, and values never appear in answers (default: none)",
        ),
      ),
      LOCAL_FILES,
    ),
    appliesIn(opt('--ignore-https-errors', 'open pages whose HTTPS certificate is not valid (default: off)'), LAUNCHED, { cdp: CDP_LAUNCH_SETTINGS }),
    appliesIn(
      opt('--proxy-server <url>', "send the browser's traffic through this proxy, e.g. http://proxy:3128 or socks5://proxy:1080 (default: none)"),
      LAUNCHED,
      { cdp: CDP_LAUNCH_SETTINGS },
    ),
    // With --cdp-endpoint it needs --proxy-server, which is refused there: resolveConfig says so.
    appliesIn(opt('--proxy-bypass <list>', 'hosts that skip the proxy, comma-separated, e.g. .internal,localhost (default: none)'), LOCAL_BROWSER),
    own.maxSessions,
    own.maxBrowserStatesPerKey,
    own.maxSessionsPerKey,
    s.logLevel,
    // @playwright/mcp's flags that name Playwright objects: refused in every mode, with what to use instead.
    appliesIn(
      opt('--endpoint <url>', 'refused: a Playwright browser server; use --cdp-endpoint with a Chrome started with --remote-debugging-port (default: none)'),
      [],
      '--endpoint connects to a Playwright browser server, which browsermcp does not drive (it speaks the Chrome DevTools Protocol). Start Chrome with --remote-debugging-port=9222 and pass --cdp-endpoint http://127.0.0.1:9222 instead.',
    ),
    appliesIn(
      opt('--init-page <files>', 'refused: TypeScript run on a Playwright page object; use --init-script (JavaScript run in every page) (default: none)'),
      [],
      '--init-page runs TypeScript against a Playwright page object, which browsermcp does not have. Put the page setup in a JavaScript file and pass it with --init-script: it runs in every page before its own scripts.',
    ),
  ];
}

export function buildProgram(): Command {
  const program = new Command('browsermcp-gateway')
    .description('MCP server that lets AI agents drive real Chrome tabs, many clients at once, each in its own tabs.')
    .version(VERSION, '-V, --version')
    .helpOption('-h, --help', 'show this help')
    .showHelpAfterError('(run browsermcp-gateway --help for every option)')
    .allowExcessArguments(false);
  for (const o of options()) program.addOption(o);
  return program;
}
