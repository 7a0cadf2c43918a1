import { Command, Option } from 'commander';
import { INSTANCE_ID_PATTERN } from './cluster/names.js';
import { checkNatsSize, DEFAULT_MAX_STORE } from './cluster/nats-config.js';
import { ConfigError, SettingValues } from './command-line.js';
import { DAEMON_NAME, parse, type CliCommand } from './cli-command.js';

/** `browsermcp-daemon nats-config`: writes a NATS server config and one nkey seed per daemon. */
export function buildNatsConfigProgram(): Command {
  return new Command(`${DAEMON_NAME} nats-config`)
    .description(
      "Writes a least-privilege NATS setup for a cluster: the server's config (an account, one nkey user per daemon, its permissions) and each daemon's seed file.",
    )
    .usage('--instances d1,d2,d3 --dir <dir>')
    .helpOption('-h, --help', 'show this help')
    .allowExcessArguments(false)
    .addOption(new Option('--instances <ids>', "the daemons' --instance-id values, comma-separated (default: none: required)"))
    .addOption(
      new Option('--dir <dir>', 'where to write nats.conf and the <id>.nk seed files; made 0700, must not hold them already (default: none: required)'),
    )
    .addOption(
      new Option(
        '--max-store <size>',
        `the most disk the cluster's buckets may take together (512M, 4G…); a full store refuses every daemon's writes (default: ${DEFAULT_MAX_STORE})`,
      ),
    );
}

/** `browsermcp-daemon nats-config …`: the daemons it is for, and where to write. */
export function parseNatsConfig(argv: string[]): CliCommand {
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
  const maxStore = values.str('maxStore') ?? DEFAULT_MAX_STORE;
  try {
    checkNatsSize(maxStore, '--max-store');
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  return { kind: 'nats-config', dir, instances, maxStore };
}
