import { Command, Option } from 'commander';
import { ConfigError, SettingValues } from './command-line.js';
import { DAEMON_NAME, parse, parseDuration, readSecret, type CliCommand } from './cli-command.js';

/** `browsermcp-daemon token`: its flags are its own (no environment: a token is made by hand). */
export function buildTokenProgram(): Command {
  return new Command(`${DAEMON_NAME} token`)
    .description('Prints an access token for /mcp and /extension.')
    .usage('--user <id> --secret-file <file> [--ttl 30d]')
    .helpOption('-h, --help', 'show this help')
    .allowExcessArguments(false)
    .addOption(new Option('--user <id>', 'the user id the token names (its "sub") (default: none: required)'))
    .addOption(new Option('--secret-file <file>', "the daemon's --auth-secret-file (default: none: required)"))
    .addOption(
      new Option('--ttl <duration>', "lifetime: seconds, or a number with s, m, h or d (at most the daemon's --auth-max-token-lifetime)").default('30d'),
    )
    .addOption(new Option('--audience <aud>', 'the token\'s "aud", for a daemon with --auth-audience (default: none)'))
    .addOption(new Option('--issuer <iss>', 'the token\'s "iss", for a daemon with --auth-issuer (default: none)'));
}

/** `browsermcp-daemon token …`: the user and secret it needs, and the token's lifetime and claims. */
export function parseToken(argv: string[]): CliCommand {
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
