import type { OpenSessionOptions } from '../backend.js';

/** A session's client folders: where its input files may come from, where names it gives for saved files land. */
export type ClientFolders = Pick<OpenSessionOptions, 'roots' | 'workspace'>;

/** Whose files a key's sessions' are, as the daemon's file policy names owners (their folder under --output-dir). */
export function keyFilesOwner(keyHash: string): string {
  return `key:${keyHash}`;
}

/**
 * What the daemon's file policy asks of each open session when a file is first needed: its client's roots, and whose
 * files its are (its API key: each key saves into, and uploads from, a directory of its own).
 */
export class SessionFilesRegistry {
  private readonly providers = new Map<string, () => Promise<string[]>>();
  private readonly workspaces = new Map<string, () => Promise<string | undefined>>();
  private readonly owners = new Map<string, string>();
  readonly lookup = async (sessionId: string): Promise<string[]> => (await this.providers.get(sessionId)?.()) ?? [];
  readonly workspace = async (sessionId: string): Promise<string | undefined> => this.workspaces.get(sessionId)?.();
  readonly owner = async (sessionId: string): Promise<string | undefined> => this.owners.get(sessionId);

  /** Opens a session with `open`, its roots and owner known from the start; forgotten again if the open fails. */
  async opening(sessionId: string, folders: ClientFolders, owner: string | undefined, open: () => Promise<unknown>): Promise<void> {
    this.provide(sessionId, folders);
    // Without keys (--no-auth, stdio) one owner has every file: the output directory itself.
    if (owner !== undefined && owner !== 'no-key' && owner !== 'stdio') this.owners.set(sessionId, keyFilesOwner(owner));
    try {
      await open();
    } catch (err) {
      this.delete(sessionId);
      throw err;
    }
  }

  /**
   * A client took up the daemon session (a kept state): its roots count from now on, not those of whoever opened it
   * (the state outlives that client; the latest to take it up is the one calling).
   */
  provide(sessionId: string, { roots, workspace }: ClientFolders): void {
    if (roots) this.providers.set(sessionId, roots);
    if (workspace) this.workspaces.set(sessionId, workspace);
  }

  delete(sessionId: string): void {
    this.providers.delete(sessionId);
    this.workspaces.delete(sessionId);
    this.owners.delete(sessionId);
  }
}
