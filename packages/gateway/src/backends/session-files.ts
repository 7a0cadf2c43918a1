import type { ClientFolders } from '@browsermcp/daemon';
import type { OpenSessionOptions } from '../backend.js';

/** Where a session's client folders come from (asked of the client): its roots, its workspace. */
export type FolderSources = Pick<OpenSessionOptions, 'roots' | 'workspace'>;

/** Whose files a key's sessions' are, as the daemon's file policy names owners (their folder under --output-dir). */
export function keyFilesOwner(keyHash: string): string {
  return `key:${keyHash}`;
}

/**
 * Each open session's client folders, asked for (roots/list) when a call needs them and handed to the daemon with that
 * call (folders), and whose files its are (its API key: each key saves into, and uploads from, a directory of its own).
 */
export class SessionFilesRegistry {
  private readonly providers = new Map<string, () => Promise<string[]>>();
  private readonly workspaces = new Map<string, () => Promise<string | undefined>>();
  private readonly owners = new Map<string, string>();
  readonly owner = async (sessionId: string): Promise<string | undefined> => this.owners.get(sessionId);

  /** The session's client folders now, for a call that reads or saves files. */
  async folders(sessionId: string): Promise<ClientFolders> {
    const [roots, workspace] = await Promise.all([this.providers.get(sessionId)?.(), this.workspaces.get(sessionId)?.()]);
    return { roots: roots ?? [], workspace };
  }

  /** Opens a session with `open`, its roots and owner known from the start; forgotten again if the open fails. */
  async opening(sessionId: string, folders: FolderSources, owner: string | undefined, open: () => Promise<unknown>): Promise<void> {
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
  provide(sessionId: string, { roots, workspace }: FolderSources): void {
    if (roots) this.providers.set(sessionId, roots);
    if (workspace) this.workspaces.set(sessionId, workspace);
  }

  delete(sessionId: string): void {
    this.providers.delete(sessionId);
    this.workspaces.delete(sessionId);
    this.owners.delete(sessionId);
  }
}
