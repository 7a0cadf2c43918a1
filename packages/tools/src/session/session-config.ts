import { TOOL_SETTING_DEFAULTS, TOOL_SETTING_KEYS, type ToolSettingValues } from '@browsermcp/protocol';
import type { UrlCheck } from '../engine/origins.js';

/**
 * The tool settings as the engine takes them: the protocol's table (TOOL_SETTINGS, where each is declared, with its
 * flag, default and help) but for the origin lists, which arrive as `checkUrl`, and --snapshot-mode, which arrives
 * as the two switches below.
 */
export type EngineToolSettings = Omit<ToolSettingValues, 'allowedOrigins' | 'blockedOrigins' | 'snapshotMode'>;
export const ENGINE_TOOL_SETTING_KEYS = TOOL_SETTING_KEYS.filter(
  (key): key is keyof EngineToolSettings => !['allowedOrigins', 'blockedOrigins', 'snapshotMode'].includes(key),
);

export interface SessionConfig extends EngineToolSettings {
  /** Whether action tools append a snapshot of the page they changed (what playwright-mcp does): not --snapshot-mode none. */
  includeSnapshot: boolean;
  /**
   * Whether that snapshot gives only what changed since the last one shown, while the document stays (a new
   * document, or a change nearly as long as the page, gives it whole): `--snapshot-mode changes`, the default.
   */
  snapshotChanges: boolean;
  /** Lets `browser_navigate` open file: URLs (off by default: pages could read local files). */
  allowUnrestrictedFileAccess?: boolean;
  /** The server's own files and folders, which file: URLs never open (besides /proc, /sys and /dev). */
  protectedPaths?: readonly string[] | undefined;
  /**
   * Refuses an address (--allowed-origins / --blocked-origins, the person's off-limits sites): returns why, or
   * undefined to allow. Checked on the agent's navigations and on every request the session's pages make.
   */
  checkUrl?: UrlCheck | undefined;
  /**
   * Secrets by name (--secrets): a name typed or filled is replaced by its value in the page, and a value never
   * appears in an answer (written `<secret>NAME</secret>`).
   */
  secrets?: Readonly<Record<string, string>> | undefined;
}

/** A session's config when its host says nothing: every tool setting at its table default, snapshots shown as changes. */
export const defaultSessionConfig: SessionConfig = {
  ...(Object.fromEntries(ENGINE_TOOL_SETTING_KEYS.map((key) => [key, TOOL_SETTING_DEFAULTS[key]])) as unknown as EngineToolSettings),
  includeSnapshot: true,
  snapshotChanges: true,
};
