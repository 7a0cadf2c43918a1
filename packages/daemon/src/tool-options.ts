/**
 * The tool-behaviour flags, which browsermcp-gateway and browsermcp-daemon both take with the same spelling, default
 * and check: the gateway sends them with each session, the daemon takes them as its own (its browser's defaults, and
 * the bounds a remote client's session asks within). Built from the protocol's table (TOOL_SETTINGS), where each is
 * declared once.
 */
import type { Option } from 'commander';
import {
  TOOL_SETTING_KEYS,
  TOOL_SETTINGS,
  type SessionSettings,
  type ToolSettingKey,
  type ToolSettingSpec,
  type ToolSettingValues,
} from '@browsermcp/protocol';
import { ConfigError, settingOption, type SettingValues } from './command-line.js';
import { entryAttribute, entryOption, readEntry } from './setting-table.js';

/** A setting's commander attribute (its config-file key): the flag in camelCase ("timeout-action" → "timeoutAction"). */
export function toolSettingAttribute(key: ToolSettingKey): string {
  return entryAttribute(TOOL_SETTINGS[key]);
}

/** The tool-behaviour flags as commander options, in the order `--help` lists them. */
export function toolOptions(): Option[] {
  return TOOL_SETTING_KEYS.map((key) => optionOf(TOOL_SETTINGS[key]));
}

function optionOf(spec: ToolSettingSpec): Option {
  switch (spec.kind) {
    case 'switch':
      return spec.default ? settingOption(`--no-${spec.flag}`, `${spec.help} (default: on)`) : settingOption(`--${spec.flag}`, `${spec.help} (default: off)`);
    case 'origins':
      return settingOption(`--${spec.flag} <${spec.arg}>`, spec.help);
    case 'int':
      return entryOption(spec);
    default:
      return settingOption(`--${spec.flag} <${spec.arg}>`, spec.help).default(String(spec.default));
  }
}

/** The tool settings the flags give, every one (defaults included), and the command timeout they fit in. */
export interface ToolFlagValues {
  settings: ToolSettingValues;
  /** Only those the user set (flag, variable or config file): what a daemon holds its clients' sessions to. */
  given: SessionSettings;
  /** --command-timeout, raised when only --timeout-navigation was set and did not fit in it. */
  commandTimeoutMs: number;
}

/** Reads and checks the tool flags, once, for either CLI. */
export function readToolFlags(v: SettingValues, commandTimeoutMs: number): ToolFlagValues {
  const settings = Object.fromEntries(TOOL_SETTING_KEYS.map((key) => [key, readSetting(v, key)])) as unknown as ToolSettingValues;
  // A navigation must end before its call does. A value the user set wins over a default it conflicts with (the
  // default moves: a navigation's down to 90 % of the call, a call's up so that the navigation fits in 90 % of it);
  // only two values the user set that conflict are refused.
  const navigationGiven = v.given(toolSettingAttribute('navigationTimeoutMs'));
  let commandMs = commandTimeoutMs;
  let navigationMs = settings.navigationTimeoutMs;
  if (navigationMs >= commandMs && !navigationGiven) navigationMs = Math.max(1, Math.floor(commandMs * 0.9));
  if (navigationMs >= commandMs && !v.given('commandTimeout')) commandMs = Math.ceil(navigationMs / 0.9 / 1000) * 1000;
  if (navigationMs >= commandMs) {
    throw new ConfigError(
      `--timeout-navigation (${navigationMs} ms) must be shorter than --command-timeout (${commandMs / 1000} s), or a slow page would end the whole call first. Raise --command-timeout or lower --timeout-navigation.`,
    );
  }
  settings.navigationTimeoutMs = navigationMs;
  const given = Object.fromEntries(TOOL_SETTING_KEYS.filter((key) => v.given(toolSettingAttribute(key))).map((key) => [key, settings[key]])) as SessionSettings;
  return { settings, given, commandTimeoutMs: commandMs };
}

function readSetting(v: SettingValues, key: ToolSettingKey): ToolSettingValues[ToolSettingKey] {
  const spec: ToolSettingSpec = TOOL_SETTINGS[key];
  const attribute = toolSettingAttribute(key);
  switch (spec.kind) {
    case 'int':
      return readEntry(v, spec) as number;
    case 'words': {
      const alias = spec.aliases?.[v.str(attribute) ?? ''];
      return alias ?? v.oneOf(attribute, spec.values)!;
    }
    case 'switch':
      // Read as the other tables' switches: one on by default stays on until its attribute says otherwise.
      return readEntry(v, spec) as boolean;
    case 'origins':
      return v.originPatterns(attribute);
    case 'name': {
      const name = v.str(attribute)!;
      if (!spec.pattern.test(name)) throw new ConfigError(`--${spec.flag} must be ${spec.what} such as ${spec.example}, got "${name}".`);
      return name;
    }
  }
}
