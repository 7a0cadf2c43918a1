/**
 * The settings that shape how tools behave, each declared once: its flag (which gives its environment variable,
 * BROWSERMCP_ and the flag in capitals, and its config-file key, the flag in camelCase), its name on the wire and in
 * the engine (the key), its default, bounds and help. Both CLIs build their options from this table, the wire checks
 * session settings against it, and the engine takes its defaults from it; a test walks it (daemon/test/tool-settings).
 */
import { z } from 'zod';

/** The values of the tool flags that take one of a few words. */
export const SNAPSHOT_MODES = ['changes', 'full', 'none'] as const;
export const CONSOLE_LEVELS = ['error', 'warning', 'info', 'debug'] as const;
export const IMAGE_RESPONSES = ['allow', 'omit', 'only'] as const;
export const CODEGEN_LANGUAGES = ['typescript', 'python', 'java', 'csharp'] as const;

interface Described {
  /** The long flag without its dashes, e.g. "max-tabs"; a switch on by default is written `--no-<flag>`. */
  flag: string;
  /** `--help`'s words; the default is added to them. */
  help: string;
}

/** A whole number within bounds; `limit`: a daemon's operator value is an upper bound on what a client asks. */
export interface IntSetting extends Described {
  kind: 'int';
  arg: string;
  default: number;
  min: number;
  max: number;
  limit?: boolean;
}

/** One of a few words; `aliases` are other spellings taken for one of them. */
export interface WordsSetting extends Described {
  kind: 'words';
  arg: string;
  values: readonly [string, ...string[]];
  default: string;
  aliases?: Readonly<Record<string, string>>;
}

/** On or off. */
export interface SwitchSetting extends Described {
  kind: 'switch';
  default: boolean;
}

/** Origin patterns (https://host, http://host:*, host names, data:, blob:), comma- or semicolon-separated. */
export interface OriginsSetting extends Described {
  kind: 'origins';
  arg: string;
}

/** A name matching `pattern`: `what` it is and an `example`, said when one does not match. */
export interface NameSetting extends Described {
  kind: 'name';
  arg: string;
  default: string;
  pattern: RegExp;
  what: string;
  example: string;
}

export type ToolSettingSpec = IntSetting | WordsSetting | SwitchSetting | OriginsSetting | NameSetting;

export const TOOL_SETTINGS = {
  allowedOrigins: {
    kind: 'origins',
    flag: 'allowed-origins',
    arg: 'list',
    help: 'only these origins may be reached by pages (every request, not only navigations): origins, http://host:*, host names, data:, blob:; comma- or semicolon-separated (default: all)',
  },
  blockedOrigins: {
    kind: 'origins',
    flag: 'blocked-origins',
    arg: 'list',
    help: 'these origins may not be reached by pages (every request, not only navigations), read before --allowed-origins; same entries (default: none)',
  },
  snapshotMaxChars: {
    kind: 'int',
    flag: 'snapshot-max-chars',
    arg: 'n',
    default: 40_000,
    min: 1000,
    max: 10_000_000,
    limit: true,
    help: 'cut snapshots longer than this at a node boundary',
  },
  snapshotMode: {
    kind: 'words',
    flag: 'snapshot-mode',
    arg: 'mode',
    values: SNAPSHOT_MODES,
    default: 'changes',
    help: 'snapshots in action answers: changes (what changed since the last one shown; a new page whole), full, or none',
  },
  snapshotBoxes: { kind: 'switch', flag: 'snapshot-boxes', default: false, help: "write each element's bounding box as [box=x,y,width,height] in snapshots" },
  actionTimeoutMs: {
    kind: 'int',
    flag: 'timeout-action',
    arg: 'ms',
    default: 5000,
    min: 1,
    max: 600_000,
    help: 'how long an action waits for its element to be ready',
  },
  navigationTimeoutMs: { kind: 'int', flag: 'timeout-navigation', arg: 'ms', default: 60_000, min: 1, max: 600_000, help: 'how long a navigation may take' },
  settleTimeoutMs: {
    kind: 'int',
    flag: 'timeout-settle',
    arg: 'ms',
    default: 1000,
    min: 0,
    max: 60_000,
    help: 'the longest an action then waits for the page to go quiet (no DOM change for 50 ms, its navigation and requests done); 0 does not wait',
  },
  consoleLevel: {
    kind: 'words',
    flag: 'console-level',
    arg: 'level',
    values: CONSOLE_LEVELS,
    default: 'info',
    help: `console messages in answers, this level and more severe: ${CONSOLE_LEVELS.join(', ')}`,
  },
  imageResponses: {
    kind: 'words',
    flag: 'image-responses',
    arg: 'mode',
    values: IMAGE_RESPONSES,
    default: 'allow',
    help: 'images in answers: allow, omit (for clients that take no images), or only (without the text)',
  },
  maxTabs: {
    kind: 'int',
    flag: 'max-tabs',
    arg: 'n',
    default: 50,
    min: 1,
    max: 1000,
    limit: true,
    help: 'most tabs one session may hold; popups a page opens past it are closed and reported',
  },
  maxLogEntries: {
    kind: 'int',
    flag: 'max-log-entries',
    arg: 'n',
    default: 1000,
    min: 10,
    max: 100_000,
    limit: true,
    help: 'console messages and requests kept per tab, each in a ring: older ones are dropped (and counted)',
  },
  consoleLinesInAnswer: {
    kind: 'int',
    flag: 'console-lines-in-answer',
    arg: 'n',
    default: 20,
    min: 0,
    max: 1000,
    limit: true,
    help: "console messages an action's answer carries, the newest; the rest are counted (browser_console_messages lists them)",
  },
  maxTabMemoryMb: {
    kind: 'int',
    flag: 'max-tab-memory',
    arg: 'MB',
    default: 2048,
    min: 64,
    max: 1_048_576,
    limit: true,
    help: "memory a tab's page may hold (its JavaScript heap and buffers): past it the tab is closed and its agent told why (a tab the person shared goes back to them)",
  },
  codegen: {
    kind: 'words',
    flag: 'codegen',
    arg: 'lang',
    values: [...CODEGEN_LANGUAGES, 'none'],
    default: 'typescript',
    aliases: { playwright: 'typescript' },
    help: `the Playwright code each action's answer carries, to replay it in a test: ${CODEGEN_LANGUAGES.join(', ')} or none ("playwright" means typescript)`,
  },
  testIdAttribute: {
    kind: 'name',
    flag: 'test-id-attribute',
    arg: 'name',
    default: 'data-testid',
    pattern: /^[A-Za-z_:][-A-Za-z0-9_:.]*$/,
    what: 'an attribute name',
    example: 'data-testid',
    help: 'the attribute generated locators read as a test id',
  },
  webmcp: {
    kind: 'switch',
    flag: 'webmcp',
    default: true,
    help: 'do not collect or call the tools pages register for agents (WebMCP); a launched browser then runs without the WebMCP feature',
  },
} as const satisfies Record<string, ToolSettingSpec>;

export type ToolSettingKey = keyof typeof TOOL_SETTINGS;
export const TOOL_SETTING_KEYS = Object.keys(TOOL_SETTINGS) as ToolSettingKey[];

type ValueOf<S> = S extends { kind: 'int' }
  ? number
  : S extends { kind: 'words'; values: readonly (infer V)[] }
    ? V
    : S extends { kind: 'switch' }
      ? boolean
      : S extends { kind: 'origins' }
        ? string[]
        : string;

/** Every tool setting's value, by its key (the name on the wire and in the engine). */
export type ToolSettingValues = { -readonly [K in ToolSettingKey]: ValueOf<(typeof TOOL_SETTINGS)[K]> };

/** The defaults: what a setting is when nobody sets it (origin lists: none). */
export const TOOL_SETTING_DEFAULTS: Readonly<ToolSettingValues> = Object.freeze(
  Object.fromEntries(TOOL_SETTING_KEYS.map((key) => [key, defaultOf(TOOL_SETTINGS[key])])) as unknown as ToolSettingValues,
);

function defaultOf(spec: ToolSettingSpec): ToolSettingValues[ToolSettingKey] {
  return spec.kind === 'origins' ? [] : spec.default;
}

/** The flag users type for a setting, for messages: "maxTabs" → "--max-tabs", "webmcp" → "--no-webmcp". */
export function toolSettingFlag(key: ToolSettingKey): string {
  const spec: ToolSettingSpec = TOOL_SETTINGS[key];
  return spec.kind === 'switch' && spec.default ? `--no-${spec.flag}` : `--${spec.flag}`;
}

/** The wire's check of one setting: the same bounds and words as the CLIs'. */
function wireSchema(spec: ToolSettingSpec): z.ZodType {
  switch (spec.kind) {
    case 'int':
      return z.number().int().min(spec.min).max(spec.max);
    case 'words':
      return z.enum(spec.values);
    case 'switch':
      return z.boolean();
    case 'origins':
      return z.array(z.string().min(1));
    case 'name':
      return z.string().regex(spec.pattern);
  }
}

/** The tool settings' part of the session settings on the wire, each optional (absent: the default). */
export const toolSettingsShape = Object.fromEntries(
  TOOL_SETTING_KEYS.map((key) => [
    key,
    wireSchema(TOOL_SETTINGS[key])
      .optional()
      .describe(`${toolSettingFlag(key)}: ${TOOL_SETTINGS[key].help}`),
  ]),
) as { [K in ToolSettingKey]: z.ZodOptional<z.ZodType<ToolSettingValues[K]>> };
