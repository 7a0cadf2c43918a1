/**
 * Which flag applies in which mode: declared on each option where options() defines it (`appliesIn`), applied by one
 * function (`refuseOutOfMode`) instead of a chain of checks in the resolver. One mode is chosen from the flags, then
 * every set flag that does not apply in it is refused, before any value is read (--browser would go looking for a
 * browser, --init-script would read its files).
 */
import type { Option } from 'commander';
import { CDP_REFUSALS, ConfigError, type SettingValues } from '@browsermcp/daemon';

/** Where the browser is: launched here, reached with --cdp-endpoint, the person's own (--extension), or a remote daemon's. */
export type Mode = 'launch' | 'cdp' | 'extension' | 'daemon';

export interface ModeDeclaration {
  readonly mode: Mode;
  /** The option (attribute name) that chooses this mode; the launched browser is what is left without one. */
  readonly chosenBy: string | undefined;
  readonly chosen: (v: SettingValues) => boolean;
  /** Refuses the flags that do not apply in this mode, named all at once (flags with a sentence of their own aside). */
  readonly refusal: (flags: string[]) => string;
}

/** A browser on this machine (its pages, contexts and profile): not the person's (--extension), not a daemon's. */
export const LOCAL_BROWSER: readonly Mode[] = ['launch', 'cdp'];
/** How browsermcp starts the browser: a running one (--cdp-endpoint) was started with its own. */
export const LAUNCHED: readonly Mode[] = ['launch'];
/** Files and secrets are the daemon's to hold with --daemon-url: this gateway's paths and values mean nothing there. */
export const LOCAL_FILES: readonly Mode[] = ['launch', 'cdp', 'extension'];

/** The refusal of a flag that only means something with --cdp-endpoint. */
export const cdpOnly = (flag: string) => `${flag} applies to a browser reached with --cdp-endpoint; add --cdp-endpoint or drop ${flag}.`;

const them = (flags: string[]) => (flags.length > 1 ? 'them' : 'it');

/** In the order they are chosen: with two mode flags set, the first mode here refuses the other's flag. */
export const MODES: readonly ModeDeclaration[] = [
  {
    mode: 'daemon',
    chosenBy: 'daemonUrl',
    chosen: (v) => v.str('daemonUrl') !== undefined,
    refusal: (flags) => `--daemon-url runs the browser on the daemon, so ${flags.join(', ')} cannot apply here. Drop ${them(flags)}.`,
  },
  {
    mode: 'extension',
    chosenBy: 'extension',
    chosen: (v) => v.bool('extension'),
    refusal: (flags) =>
      `--extension drives your own browser, so ${flags.join(', ')} cannot apply (they shape a browser browsermcp launches). Drop ${them(flags)}, or drop --extension.`,
  },
  {
    mode: 'cdp',
    chosenBy: 'cdpEndpoint',
    chosen: (v) => v.str('cdpEndpoint') !== undefined,
    refusal: (flags) => CDP_REFUSALS.launchFlags(flags),
  },
  {
    mode: 'launch',
    chosenBy: undefined,
    chosen: () => true,
    // Unused today (each flag kept out of the launched browser says why itself), but every mode needs a sentence.
    refusal: (flags) =>
      `${flags.join(', ')} cannot apply to a browser browsermcp launches (no --cdp-endpoint, --extension or --daemon-url). Drop ${them(flags)}.`,
  },
];

/** Where one option applies. An option without one applies in every mode. */
export interface ModeRule {
  readonly modes: readonly Mode[];
  /**
   * The option's own refusal (the flag, why, the fix): one sentence for every mode it does not apply in, or one per
   * mode. A mode without one refuses the flag with the mode's sentence, along with the other flags it refuses.
   */
  readonly refusal?: string | Readonly<Partial<Record<Mode, string>>>;
}

// Beside the commander Option, which has no room for it (as the daemon's repeatable options).
const rules = new WeakMap<Option, ModeRule>();

/** Declares, where an option is defined, the modes it applies in and how it is refused in the others. */
export function appliesIn(option: Option, modes: readonly Mode[], refusal?: ModeRule['refusal']): Option {
  rules.set(option, refusal === undefined ? { modes } : { modes, refusal });
  return option;
}

/** An option's rule: as declared; a mode's own flag applies in that mode only; undefined (everywhere) otherwise. */
export function modeRule(option: Option): ModeRule | undefined {
  const declared = rules.get(option);
  if (declared) return declared;
  const chooses = MODES.find((m) => m.chosenBy === option.attributeName());
  return chooses ? { modes: [chooses.mode] } : undefined;
}

/** The option's own sentence for a mode it does not apply in, if it has one. */
function ownRefusal(rule: ModeRule, mode: Mode): string | undefined {
  return typeof rule.refusal === 'string' ? rule.refusal : rule.refusal?.[mode];
}

/** The sentence an option alone is refused with in a mode it does not apply in, given the flag as the user set it. */
export function refusalIn(rule: ModeRule, mode: Mode, flag: string): string {
  return ownRefusal(rule, mode) ?? modeDeclaration(mode).refusal([flag]);
}

export function modeDeclaration(mode: Mode): ModeDeclaration {
  return MODES.find((m) => m.mode === mode)!;
}

/**
 * The chosen mode, after refusing every set option that does not apply in it. First an option that applies in no mode
 * (it has to go whatever mode was meant), then the mode's sentence naming every other option it refuses at once, then
 * an option's own sentence for this mode.
 */
export function refuseOutOfMode(options: readonly Option[], v: SettingValues): Mode {
  // 'launch' is chosen when nothing else is.
  const chosen = MODES.find((m) => m.chosen(v))!;
  const own: Array<{ sentence: string; nowhere: boolean }> = [];
  const refused: string[] = [];
  const seen = new Set<string>();
  for (const option of options) {
    const key = option.attributeName();
    const rule = modeRule(option);
    // --sandbox and --no-sandbox are one setting: looked at once, named by the one that set it.
    if (!rule || seen.has(key)) continue;
    seen.add(key);
    // A mode's flag counts when it chooses its mode (--extension off in a config file is no mode); others when given.
    const chooses = MODES.find((m) => m.chosenBy === key);
    const set = chooses ? chooses.chosen(v) : v.given(key);
    if (!set || rule.modes.includes(chosen.mode)) continue;
    const sentence = ownRefusal(rule, chosen.mode);
    if (sentence !== undefined) own.push({ sentence, nowhere: rule.modes.length === 0 });
    else refused.push(v.flag(key));
  }
  const nowhere = own.find((o) => o.nowhere);
  if (nowhere) throw new ConfigError(nowhere.sentence);
  if (refused.length) throw new ConfigError(chosen.refusal(refused));
  if (own[0]) throw new ConfigError(own[0].sentence);
  return chosen.mode;
}

// Options that only mean something over HTTP (--port), beside the Option as the mode rules are.
const httpOnly = new WeakMap<Option, string | undefined>();

/**
 * Declares, where an option is defined, that it applies to MCP over HTTP only: over stdio the client starts the
 * gateway and talks to it alone (no address, key, limit or other client). `refusal`: its own sentence.
 */
export function overHttp(option: Option, refusal?: string): Option {
  httpOnly.set(option, refusal);
  return option;
}

/** Over stdio (no --port), refuses every HTTP-only option that was set, naming them, before any value is read. */
export function refuseOutsideHttp(options: readonly Option[], v: SettingValues): void {
  if (v.str('port') !== undefined) return;
  const refused: string[] = [];
  for (const option of options) {
    if (!httpOnly.has(option) || !v.given(option.attributeName())) continue;
    const own = httpOnly.get(option);
    if (own !== undefined) throw new ConfigError(own);
    refused.push(v.flag(option.attributeName()));
  }
  if (refused.length) {
    throw new ConfigError(
      `${refused.join(', ')} ${refused.length > 1 ? 'apply' : 'applies'} to MCP over HTTP (--port): over stdio the client starts the gateway and talks to it alone. Add --port <port>, or drop ${them(refused)}.`,
    );
  }
}
