import { Option, type Command } from 'commander';
import { ConfigError, type SettingValues } from './command-line.js';

/** Keeps every value of an old spelling; applyOldSpellings takes the last for a single-valued one. */
const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

/**
 * The daemon's spellings before it took the gateway's: they still work for one release, each with one deprecation
 * line. `--headed` has no new spelling: headed is the default when a display exists.
 */
interface OldSpelling {
  flags: string;
  /** The attribute (config-file key) of the setting it now sets; undefined for --headed. */
  key: string | undefined;
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

/** The old spellings as hidden options, without a variable or config key: only so that old command lines keep working. */
export function addOldSpellings(program: Command): void {
  for (const old of OLD_SPELLINGS) {
    const option = new Option(old.flags).hideHelp();
    program.addOption(old.flags.includes('<') ? option.argParser(collect) : option);
  }
}

/** Folds the old spellings into the settings they name; both spellings of one setting on the command line is an error. */
export function applyOldSpellings(program: Command, values: SettingValues): { notes: string[]; headed: boolean } {
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
