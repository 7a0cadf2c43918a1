import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';

// Linux /proc readers for the tests that check what a process leaves behind (orphan browsers, open ports).

function stat(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
}

function parentOf(pid: number): number | undefined {
  const s = stat(pid);
  if (!s) return undefined;
  // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after the last ')'.
  const fields = s.slice(s.lastIndexOf(')') + 2).split(' ');
  return Number(fields[1]);
}

/** Running (a zombie waiting to be reaped counts as gone). */
export function alive(pid: number): boolean {
  const s = stat(pid);
  if (!s) return false;
  return s.slice(s.lastIndexOf(')') + 2)[0] !== 'Z';
}

/** A process and all its descendants. */
export function processTree(rootPid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const ppid = parentOf(Number(entry));
    if (ppid === undefined) continue;
    children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
  }
  const out: number[] = [];
  const todo = [rootPid];
  while (todo.length) {
    const pid = todo.pop()!;
    if (!alive(pid)) continue;
    out.push(pid);
    todo.push(...(children.get(pid) ?? []));
  }
  return out;
}

/** A process's arguments ([] once it is gone). */
export function commandLine(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return [];
  }
}

/** The inodes of every TCP socket on the machine that is listening (state 0A in /proc/net/tcp and tcp6). */
function listeningInodes(): Set<string> {
  const inodes = new Set<string>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields[3] === '0A' && fields[9]) inodes.add(fields[9]);
    }
  }
  return inodes;
}

/** How many listening TCP sockets these processes hold open (a DevTools port would be one). */
export function listeningSocketCount(pids: number[]): number {
  const listening = listeningInodes();
  let count = 0;
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      let target: string;
      try {
        target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      const m = /^socket:\[(\d+)\]$/.exec(target);
      if (m && listening.has(m[1]!)) count++;
    }
  }
  return count;
}

export interface DevToolsExposure {
  /** The browser's main process was started with --remote-debugging-pipe. */
  pipe: boolean;
  /** It was started with a --remote-debugging-port. */
  portFlag: boolean;
  /** Its profile holds a DevToolsActivePort file (what a local process reads to find the port). */
  activePortFile: boolean;
  /** Listening TCP sockets held by any of its processes. */
  listeningSockets: number;
}

/** How another local process could reach a launched browser's DevTools, from its processes' pids. */
export function devToolsExposure(browserPids: number[]): DevToolsExposure {
  const main = browserPids.map(commandLine).find((args) => args.some((a) => a.startsWith('--remote-debugging-'))) ?? [];
  const profile = main.find((arg) => arg.startsWith('--user-data-dir='))?.slice('--user-data-dir='.length);
  return {
    pipe: main.includes('--remote-debugging-pipe'),
    portFlag: main.some((arg) => arg.startsWith('--remote-debugging-port')),
    activePortFile: profile !== undefined && existsSync(join(profile, 'DevToolsActivePort')),
    listeningSockets: listeningSocketCount(browserPids),
  };
}
