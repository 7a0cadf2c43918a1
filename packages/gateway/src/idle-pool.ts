/**
 * Things kept open between uses, by key (a remote daemon's connections, each holding one kept browser state): `take`
 * hands back one put there, `put` keeps one for `idleMs` (then `end` closes it), at most `perKey` per key.
 */
export class IdlePool<T> {
  private readonly idle = new Map<string, Array<{ item: T; timer: ReturnType<typeof setTimeout> }>>();

  constructor(
    private readonly options: {
      idleMs: number;
      perKey: number;
      /** Whether an item can still be used (a connection that dropped cannot). */
      usable: (item: T) => boolean;
      /** Closes an item that is no longer kept. */
      end: (item: T) => void;
    },
  ) {}

  take(key: string): T | undefined {
    const list = this.idle.get(key);
    while (list?.length) {
      const { item, timer } = list.pop()!;
      clearTimeout(timer);
      if (list.length === 0) this.idle.delete(key);
      if (this.options.usable(item)) return item;
      this.options.end(item);
    }
    return undefined;
  }

  put(key: string, item: T): void {
    const list = this.idle.get(key) ?? [];
    if (list.length >= this.options.perKey || !this.options.usable(item)) {
      this.options.end(item);
      return;
    }
    const timer = setTimeout(() => {
      const at = list.findIndex((entry) => entry.item === item);
      if (at >= 0) list.splice(at, 1);
      if (list.length === 0 && this.idle.get(key) === list) this.idle.delete(key);
      this.options.end(item);
    }, this.options.idleMs);
    timer.unref?.();
    list.push({ item, timer });
    this.idle.set(key, list);
  }

  /** Ends everything kept. */
  clear(): void {
    for (const list of this.idle.values()) {
      for (const { item, timer } of list) {
        clearTimeout(timer);
        this.options.end(item);
      }
    }
    this.idle.clear();
  }
}
