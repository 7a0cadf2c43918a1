import type { Command } from 'commander';
import { ENV_PREFIX } from './command-line.js';
import { parseBooleanText } from './boolean-env.js';

const PLAYWRIGHT_PREFIX = 'PLAYWRIGHT_MCP_';

/** @playwright/mcp's variables whose flag is spelled differently here. */
const RENAMED: Record<string, string> = { CDP_HEADERS: 'CDP_HEADER', SECRETS_FILE: 'SECRETS' };

/**
 * @playwright/mcp's environment variables (PLAYWRIGHT_MCP_<FLAG>) as ours (BROWSERMCP_<FLAG>), for a configuration
 * written for it: returns the variables to add. Ours win where both are set. Its booleans read "true"/"1" and
 * "false"/"0"; "false" on a flag that has a "no-" twin (PLAYWRIGHT_MCP_SANDBOX=false) sets the twin.
 */
export function playwrightEnvAliases(program: Command, env: NodeJS.ProcessEnv): Record<string, string> {
  const options = new Map(program.options.filter((o) => o.envVar).map((o) => [o.envVar!, o]));
  const added: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith(PLAYWRIGHT_PREFIX) || value === undefined || value.trim() === '') continue;
    const flag = name.slice(PLAYWRIGHT_PREFIX.length);
    const ours = `${ENV_PREFIX}${RENAMED[flag] ?? flag}`;
    const option = options.get(ours);
    if (!option) continue;
    if (option.required || option.optional) {
      if (env[ours] === undefined) added[ours] = value.trim();
      continue;
    }
    // A boolean flag: commander turns it on whenever its variable is set, whatever the value.
    const said = parseBooleanText(value);
    const on = said === true;
    const off = said === false;
    const target = on ? ours : off ? `${ENV_PREFIX}NO_${RENAMED[flag] ?? flag}` : undefined;
    if (target !== undefined && options.has(target) && env[target] === undefined) added[target] = '1';
  }
  return added;
}
