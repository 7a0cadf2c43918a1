import type { Command, Option } from 'commander';

/** What a yes/no setting may say, in a variable or a config file; anything else is refused, naming where it was. */
const ON = new Set(['true', '1', 'yes', 'on']);
const OFF = new Set(['false', '0', 'no', 'off']);

/** "true"/"1"/"yes"/"on" → true, "false"/"0"/"no"/"off" → false (any case, spaces around ignored); else undefined. */
export function parseBooleanText(text: string): boolean | undefined {
  const word = text.trim().toLowerCase();
  return ON.has(word) ? true : OFF.has(word) ? false : undefined;
}

/** The words parseBooleanText takes, for messages. */
export const BOOLEAN_WORDS = 'true, 1, yes or on to turn it on; false, 0, no or off to leave it off';

/** A flag without a value (--headless, --no-auth): its variable says yes or no. */
function isSwitch(option: Option): boolean {
  return !option.required && !option.optional && option.envVar !== undefined;
}

/** The value an attribute has before any variable counts: a declared default, or commander's `true` for a lone --no-x. */
function defaultOf(program: Command, options: Option[]): unknown {
  const declared = options.find((o) => o.defaultValue !== undefined);
  if (declared) return declared.defaultValue;
  const lone = options.find((o) => o.negate && !program.options.some((p) => p.long === o.long!.replace(/^--no-/, '--')));
  return lone ? true : undefined;
}

/**
 * Commander turns a switch on whenever its variable is set, whatever it says, so BROWSERMCP_NO_AUTH=false turned auth
 * off. This reads those variables again after `program.parse`: a yes sets the switch; a no leaves a lone switch as if
 * the variable were not set, and sets a pair's other side (BROWSERMCP_SANDBOX=false is --no-sandbox); any other value
 * is refused with an Error naming the variable (the caller words it as its own config error). Flags given on the
 * command line still win, as commander has them.
 */
export function applySwitchVariables(program: Command, env: NodeJS.ProcessEnv, fail: (message: string) => Error): void {
  const switches = program.options.filter(isSwitch);
  const byAttribute = new Map<string, Option[]>();
  for (const option of switches) byAttribute.set(option.attributeName(), [...(byAttribute.get(option.attributeName()) ?? []), option]);
  // Undo what commander read from the environment for them, then read it again, in the options' order as it did.
  for (const [attribute, options] of byAttribute) {
    if (program.getOptionValueSource(attribute) === 'env') program.setOptionValueWithSource(attribute, defaultOf(program, options), 'default');
  }
  for (const option of switches) {
    const attribute = option.attributeName();
    const text = env[option.envVar!];
    if (text === undefined || program.getOptionValueSource(attribute) === 'cli') continue;
    const value = parseBooleanText(text);
    if (value === undefined)
      throw fail(`${option.envVar}="${text}" is not a yes or no: set it to ${BOOLEAN_WORDS} (it stands for ${option.long}), or unset it.`);
    const pair = byAttribute.get(attribute)!.length > 1;
    if (value || pair) program.setOptionValueWithSource(attribute, value !== option.negate, 'env');
  }
}
