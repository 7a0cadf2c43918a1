import type { CodegenLanguage } from './codegen.js';
import { originPolicy } from './origins.js';
import type { ConsoleLevel, SessionConfig } from './session.js';

/** The gateway's flags that shape how tools behave, in the form they travel to any host (the extension too). */
export interface ToolSettings {
  snapshotMaxChars?: number | undefined;
  allowedOrigins?: string[] | undefined;
  blockedOrigins?: string[] | undefined;
  /** --timeout-action, ms. */
  actionTimeoutMs?: number | undefined;
  /** --timeout-navigation, ms. */
  navigationTimeoutMs?: number | undefined;
  /** --test-id-attribute. */
  testIdAttribute?: string | undefined;
  /** --snapshot-mode: "none" answers actions without a snapshot. */
  snapshotMode?: 'full' | 'none' | undefined;
  /** --snapshot-boxes. */
  snapshotBoxes?: boolean | undefined;
  /** --console-level: the console messages answers carry. */
  consoleLevel?: ConsoleLevel | undefined;
  /** --image-responses. */
  imageResponses?: 'allow' | 'omit' | 'only' | undefined;
  /** --secrets: name → value. */
  secrets?: Record<string, string> | undefined;
  /** --allow-unrestricted-file-access: pages may open file: URLs. */
  allowFileUrls?: boolean | undefined;
  /** --codegen: the language of the code each action's answer carries, or none. */
  codegen?: CodegenLanguage | 'none' | undefined;
  /** --max-tabs: most tabs a session may hold. */
  maxTabs?: number | undefined;
  /** --max-log-entries: console messages and requests kept per tab, each. */
  maxLogEntries?: number | undefined;
  /** --console-lines-in-answer: console messages an action's answer carries. */
  consoleLinesInAnswer?: number | undefined;
  /** --max-tab-memory: MB a tab's page may hold before it is closed. */
  maxTabMemoryMb?: number | undefined;
}

/** The session config these settings ask for; the same in a launched browser and in the extension. */
export function sessionConfigFrom(settings: ToolSettings): Partial<SessionConfig> {
  const checkUrl = originPolicy(settings.allowedOrigins, settings.blockedOrigins);
  const defined = <K extends keyof SessionConfig>(key: K, value: SessionConfig[K] | undefined) => (value === undefined ? {} : { [key]: value });
  return {
    ...defined('snapshotMaxChars', settings.snapshotMaxChars),
    ...(checkUrl ? { checkUrl } : {}),
    ...defined('actionTimeoutMs', settings.actionTimeoutMs),
    ...defined('navigationTimeoutMs', settings.navigationTimeoutMs),
    ...defined('testIdAttribute', settings.testIdAttribute),
    ...(settings.snapshotMode === 'none' ? { includeSnapshot: false } : {}),
    ...defined('snapshotBoxes', settings.snapshotBoxes),
    ...defined('consoleLevel', settings.consoleLevel),
    ...defined('imageResponses', settings.imageResponses),
    ...defined('secrets', settings.secrets),
    ...defined('allowFileUrls', settings.allowFileUrls),
    ...defined('codegen', settings.codegen),
    ...defined('maxTabs', settings.maxTabs),
    ...defined('maxLogEntries', settings.maxLogEntries),
    ...defined('consoleLinesInAnswer', settings.consoleLinesInAnswer),
    ...defined('maxTabMemoryMb', settings.maxTabMemoryMb),
  };
}
