/**
 * A new agent's request, shown where the person sees it even with the extension not pinned (its state after
 * install: no badge in sight): a system notification with the agent's name, identity and wish, and Allow once / Deny.
 * The popup keeps the full choice (Always allow too).
 */
const PREFIX = 'approve:';
export const NOTIFICATION_BUTTONS = ['once', 'deny'] as const;

/** A notification that stays until answered or cleared (the person may be away from the screen). */
function notify(id: string, options: { title: string; message: string; contextMessage: string; buttons?: Array<{ title: string }> }): void {
  void chrome.notifications
    .create(id, { type: 'basic', iconUrl: chrome.runtime.getURL('icon128.png'), requireInteraction: true, priority: 2, ...options })
    .catch(() => undefined);
}

function clear(id: string): void {
  void chrome.notifications.clear(id).catch(() => undefined);
}

/**
 * Chrome's notification shows about 30 characters of a title and of the source line, on one line each (measured in
 * Chromium 150's message center at 1400 × 900): the title is the question with the name, the source line the product;
 * a name too long for the title comes whole in the message.
 */
const TITLE_NAME_CHARS = 22;

export function showApprovalRequest(sessionId: string, name: string, identity: string, wants: string): void {
  const who = name.length > TITLE_NAME_CHARS ? `"${name}" (${identity})` : `The agent (${identity})`;
  notify(`${PREFIX}${sessionId}`, {
    title: `Allow "${name}"?`,
    message: `${who} wants to use your browser: ${wants}.`,
    contextMessage: 'browsermcp',
    buttons: [{ title: 'Allow once' }, { title: 'Deny' }],
  });
}

export function clearApprovalRequest(sessionId: string): void {
  clear(`${PREFIX}${sessionId}`);
}

/** The session a notification asks about, or undefined for notifications not ours. */
export function sessionOfNotification(notificationId: string): string | undefined {
  return notificationId.startsWith(PREFIX) ? notificationId.slice(PREFIX.length) : undefined;
}

const HANDOFF_PREFIX = 'handoff:';

/**
 * An agent hands the person a step (browser_request_user): a notification like an approval's, so the person notices
 * even with the extension unpinned; clicking it shows the agent's tab, where the banner waits for Done or Decline.
 */
export function showHandoff(sessionId: string, name: string, message: string): void {
  const whole = name.length > TITLE_NAME_CHARS ? `"${name}": ` : '';
  notify(`${HANDOFF_PREFIX}${sessionId}`, {
    title: `"${name}" needs you`,
    message: `${whole}${message.replace(/^Waiting for the person: /, '')} Click to see its tab.`,
    contextMessage: 'browsermcp',
  });
}

export function clearHandoff(sessionId: string): void {
  clear(`${HANDOFF_PREFIX}${sessionId}`);
}

/** The session a hand-off notification is about, or undefined for other notifications. */
export function sessionOfHandoff(notificationId: string): string | undefined {
  return notificationId.startsWith(HANDOFF_PREFIX) ? notificationId.slice(HANDOFF_PREFIX.length) : undefined;
}
