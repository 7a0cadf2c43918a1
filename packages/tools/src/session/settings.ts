import { TOOL_SETTING_KEYS, TOOL_SETTINGS, type SessionSettings, type ToolSettingSpec } from '@browsermcp/protocol';
import { originPolicy } from '../engine/origins.js';
import { ENGINE_TOOL_SETTING_KEYS, type SessionConfig } from './session-config.js';

/**
 * The gateway's flags that shape how tools behave, in the form they travel to any host (the extension, a remote
 * daemon): declared once, by the protocol's session settings.
 */
export type ToolSettings = Omit<SessionSettings, 'caps' | 'outputDir'>;

/** Settings a daemon cannot take from a client, with why and what to do. */
export class SettingsConflictError extends Error {}

/** The settings whose operator value is an upper bound on what a client asks (`limit` in the table). */
const LIMITS = TOOL_SETTING_KEYS.filter((key) => {
  const spec: ToolSettingSpec = TOOL_SETTINGS[key];
  return spec.kind === 'int' && spec.limit === true;
}) as Array<'snapshotMaxChars' | 'maxTabs' | 'maxLogEntries' | 'consoleLinesInAnswer' | 'maxTabMemoryMb'>;

/**
 * What a client asks (its gateway's flags) within what the daemon's operator set: the operator's limits are upper
 * bounds, its blocked origins add to the client's, its `caps` are the tool groups on offer. Where the two cannot both
 * hold (two allowed lists, a tool group the daemon does not offer), the client is refused with why: never silently
 * one of them.
 */
export function settingsWithin(own: SessionSettings | undefined, asked: SessionSettings | undefined): SessionSettings {
  if (!own) return asked ?? {};
  if (!asked) return own;
  const merged: SessionSettings = { ...own, ...asked };
  for (const key of LIMITS) {
    const [a, b] = [own[key], asked[key]];
    if (a !== undefined && b !== undefined) merged[key] = Math.min(a, b);
  }
  const blocked = [...new Set([...(own.blockedOrigins ?? []), ...(asked.blockedOrigins ?? [])])];
  if (blocked.length) merged.blockedOrigins = blocked;
  const [ownAllowed, askedAllowed] = [own.allowedOrigins ?? [], asked.allowedOrigins ?? []];
  if (ownAllowed.length && askedAllowed.length && [...ownAllowed].sort().join() !== [...askedAllowed].sort().join()) {
    throw new SettingsConflictError(
      `this daemon holds its pages to its own --allowed-origins (${ownAllowed.join(', ')}), which a client's list cannot be combined with: leave --allowed-origins off the gateway (or use --blocked-origins), or ask the daemon's operator`,
    );
  }
  if (ownAllowed.length) merged.allowedOrigins = ownAllowed;
  if (own.caps !== undefined && asked.caps !== undefined) {
    const missing = asked.caps.filter((c) => !own.caps!.includes(c));
    if (missing.length) {
      throw new SettingsConflictError(
        `this daemon does not offer the ${missing.map((c) => `"${c}"`).join(', ')} tools (its --caps: ${own.caps.join(', ') || 'none'}): leave them out of the gateway's --caps, or ask the daemon's operator`,
      );
    }
  }
  if (own.allowUnrestrictedFileAccess === false) merged.allowUnrestrictedFileAccess = false;
  const protectedPaths = [...new Set([...(own.protectedPaths ?? []), ...(asked.protectedPaths ?? [])])];
  if (protectedPaths.length) merged.protectedPaths = protectedPaths;
  if (own.secrets || asked.secrets) merged.secrets = { ...own.secrets, ...asked.secrets };
  return merged;
}

/** The session config these settings ask for; the same in a launched browser and in the extension. */
export function sessionConfigFrom(settings: ToolSettings): Partial<SessionConfig> {
  const checkUrl = originPolicy(settings.allowedOrigins, settings.blockedOrigins);
  // The table's settings the engine takes as they are, where given; then the ones it takes in its own form.
  const same = Object.fromEntries(
    ENGINE_TOOL_SETTING_KEYS.filter((key) => settings[key] !== undefined).map((key) => [key, settings[key]]),
  ) as Partial<SessionConfig>;
  return {
    ...same,
    ...(checkUrl ? { checkUrl } : {}),
    ...(settings.snapshotMode === 'none' ? { includeSnapshot: false } : {}),
    ...(settings.snapshotMode === 'full' ? { snapshotChanges: false } : {}),
    ...(settings.secrets !== undefined ? { secrets: settings.secrets } : {}),
    ...(settings.allowUnrestrictedFileAccess !== undefined ? { allowUnrestrictedFileAccess: settings.allowUnrestrictedFileAccess } : {}),
    ...(settings.protectedPaths !== undefined ? { protectedPaths: settings.protectedPaths } : {}),
  };
}
