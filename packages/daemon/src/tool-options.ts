/**
 * The tool-behaviour flags, which browsermcp-gateway and browsermcp-daemon both take with the same spelling, default
 * and check: the gateway sends them with each session, the daemon takes them as its own (its browser's defaults, and
 * the bounds a remote client's session asks within). Declared once here, next to the other shared settings.
 */
import type { Option } from 'commander';
import { CODEGEN_LANGUAGES, CONSOLE_LEVELS, IMAGE_RESPONSES, SNAPSHOT_MODES, type SessionSettings } from '@browsermcp/protocol';
import { ConfigError, settingOption, type SettingValues } from './command-line.js';

/** The tool-behaviour flags as commander options, in the order `--help` lists them. */
export function toolOptions(): Option[] {
  const opt = settingOption;
  return [
    opt('--allowed-origins <list>', 'only these origins may be reached by pages (every request, not only navigations): origins, http://host:*, host names, data:, blob:; comma- or semicolon-separated (default: all)'),
    opt('--blocked-origins <list>', 'these origins may not be reached by pages (every request, not only navigations), read before --allowed-origins; same entries (default: none)'),
    opt('--snapshot-max-chars <n>', 'cut snapshots longer than this at a node boundary').default('40000'),
    opt('--snapshot-mode <mode>', "snapshots in action answers: changes (what changed since the last one shown; a new page whole), full, or none").default('changes'),
    opt('--snapshot-boxes', "write each element's bounding box as [box=x,y,width,height] in snapshots (default: off)"),
    opt('--timeout-action <ms>', 'how long an action waits for its element to be ready').default('5000'),
    opt('--timeout-navigation <ms>', 'how long a navigation may take').default('60000'),
    opt('--timeout-settle <ms>', 'the longest an action then waits for the page to go quiet (no DOM change for 50 ms, its navigation and requests done); 0 does not wait').default('1000'),
    opt('--console-level <level>', `console messages in answers, this level and more severe: ${CONSOLE_LEVELS.join(', ')}`).default('info'),
    opt('--image-responses <mode>', 'images in answers: allow, omit (for clients that take no images), or only (without the text)').default('allow'),
    opt('--max-tabs <n>', 'most tabs one session may hold; popups a page opens past it are closed and reported').default('50'),
    opt('--max-log-entries <n>', 'console messages and requests kept per tab, each in a ring: older ones are dropped (and counted)').default('1000'),
    opt('--console-lines-in-answer <n>', "console messages an action's answer carries, the newest; the rest are counted (browser_console_messages lists them)").default('20'),
    opt('--max-tab-memory <MB>', "memory a tab's page may hold (its JavaScript heap and buffers): past it the tab is closed and its agent told why (a tab the person shared goes back to them)").default('2048'),
    opt('--codegen <lang>', `the Playwright code each action's answer carries, to replay it in a test: ${CODEGEN_LANGUAGES.join(', ')} or none ("playwright" means typescript)`).default('typescript'),
    opt('--test-id-attribute <name>', 'the attribute generated locators read as a test id').default('data-testid'),
    opt('--no-webmcp', "do not collect or call the tools pages register for agents (WebMCP); a launched browser then runs without the WebMCP feature (default: on)"),
  ];
}

/** The tool settings the flags give, every one (defaults included), and the command timeout they fit in. */
export interface ToolFlagValues {
  settings: Required<Pick<SessionSettings, 'allowedOrigins' | 'blockedOrigins' | 'snapshotMaxChars' | 'snapshotMode' | 'snapshotBoxes' | 'actionTimeoutMs' | 'settleTimeoutMs' | 'navigationTimeoutMs' | 'webmcp' | 'consoleLevel' | 'imageResponses' | 'testIdAttribute' | 'maxTabs' | 'maxLogEntries' | 'consoleLinesInAnswer' | 'maxTabMemoryMb' | 'codegen'>>;
  /** Only those the user set (flag, variable or config file): what a daemon holds its clients' sessions to. */
  given: SessionSettings;
  /** --command-timeout, raised when only --timeout-navigation was set and did not fit in it. */
  commandTimeoutMs: number;
}

/** Reads and checks the tool flags, once, for either CLI. */
export function readToolFlags(v: SettingValues, commandTimeoutMs: number): ToolFlagValues {
  const int = (k: string, min: number, max: number) => v.int(k, min, max)!;
  // A navigation must end before its call does. A value the user set wins over a default it conflicts with (the
  // default moves: a navigation's down to 90 % of the call, a call's up so that the navigation fits in 90 % of it);
  // only two values the user set that conflict are refused.
  let commandMs = commandTimeoutMs;
  let navigationMs = int('timeoutNavigation', 1, 600_000);
  if (navigationMs >= commandMs && !v.given('timeoutNavigation')) navigationMs = Math.max(1, Math.floor(commandMs * 0.9));
  if (navigationMs >= commandMs && !v.given('commandTimeout')) commandMs = Math.ceil(navigationMs / 0.9 / 1000) * 1000;
  if (navigationMs >= commandMs) {
    throw new ConfigError(
      `--timeout-navigation (${navigationMs} ms) must be shorter than --command-timeout (${commandMs / 1000} s), or a slow page would end the whole call first. Raise --command-timeout or lower --timeout-navigation.`,
    );
  }
  const settings: ToolFlagValues['settings'] = {
    allowedOrigins: v.originPatterns('allowedOrigins'),
    blockedOrigins: v.originPatterns('blockedOrigins'),
    snapshotMaxChars: int('snapshotMaxChars', 1000, 10_000_000),
    snapshotMode: v.oneOf('snapshotMode', SNAPSHOT_MODES)!,
    snapshotBoxes: v.bool('snapshotBoxes'),
    actionTimeoutMs: int('timeoutAction', 1, 600_000),
    settleTimeoutMs: int('timeoutSettle', 0, 60_000),
    // --no-webmcp sets webmcp=false in commander (a variable or config file may say "false").
    webmcp: v.raw('webmcp') !== false && v.raw('webmcp') !== 'false',
    navigationTimeoutMs: navigationMs,
    consoleLevel: v.oneOf('consoleLevel', CONSOLE_LEVELS)!,
    imageResponses: v.oneOf('imageResponses', IMAGE_RESPONSES)!,
    testIdAttribute: testIdAttribute(v.str('testIdAttribute')!),
    maxTabs: int('maxTabs', 1, 1000),
    maxLogEntries: int('maxLogEntries', 10, 100_000),
    consoleLinesInAnswer: int('consoleLinesInAnswer', 0, 1000),
    maxTabMemoryMb: int('maxTabMemory', 64, 1_048_576),
    codegen: v.str('codegen') === 'playwright' ? 'typescript' : v.oneOf('codegen', [...CODEGEN_LANGUAGES, 'none'] as const)!,
  };
  const flagOf: Record<keyof ToolFlagValues['settings'], string> = {
    allowedOrigins: 'allowedOrigins',
    blockedOrigins: 'blockedOrigins',
    snapshotMaxChars: 'snapshotMaxChars',
    snapshotMode: 'snapshotMode',
    snapshotBoxes: 'snapshotBoxes',
    actionTimeoutMs: 'timeoutAction',
    settleTimeoutMs: 'timeoutSettle',
    webmcp: 'webmcp',
    navigationTimeoutMs: 'timeoutNavigation',
    consoleLevel: 'consoleLevel',
    imageResponses: 'imageResponses',
    testIdAttribute: 'testIdAttribute',
    maxTabs: 'maxTabs',
    maxLogEntries: 'maxLogEntries',
    consoleLinesInAnswer: 'consoleLinesInAnswer',
    maxTabMemoryMb: 'maxTabMemory',
    codegen: 'codegen',
  };
  const given = Object.fromEntries(Object.entries(settings).filter(([key]) => v.given(flagOf[key as keyof typeof flagOf]))) as SessionSettings;
  return { settings, given, commandTimeoutMs: commandMs };
}

function testIdAttribute(name: string): string {
  if (!/^[A-Za-z_:][-A-Za-z0-9_:.]*$/.test(name)) throw new ConfigError(`--test-id-attribute must be an attribute name such as data-testid, got "${name}".`);
  return name;
}
