import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism, totalmem } from 'node:os';

/** Parent pid of every live process, from /proc/<pid>/stat (the comm field may hold spaces and parentheses). */
function parents(): Map<number, number> {
  const map = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      map.set(Number(entry), Number(fields[1]));
    } catch {
      // The process ended while we looked.
    }
  }
  return map;
}

/** The roots and every process below them. */
export function processTree(roots: readonly number[]): number[] {
  const ppid = parents();
  const children = new Map<number, number[]>();
  for (const [pid, parent] of ppid) children.set(parent, [...(children.get(parent) ?? []), pid]);
  const out: number[] = [];
  const stack = roots.filter((pid) => ppid.has(pid));
  while (stack.length > 0) {
    const pid = stack.pop()!;
    out.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return out;
}

function kbField(text: string, field: string): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text);
  return m ? Number(m[1]) : 0;
}

export interface TreeMemory {
  processes: number;
  /** Sum of VmRSS over the tree: counts pages shared between Chromium's processes once per process. */
  rssMB: number;
  /** Sum of Pss (proportional set size): shared pages split between the processes that map them. */
  pssMB: number;
}

/** Memory of the process trees rooted at `roots`, read from /proc. */
export function treeMemory(roots: readonly number[]): TreeMemory {
  let rss = 0;
  let pss = 0;
  const pids = processTree(roots);
  for (const pid of pids) {
    try {
      rss += kbField(readFileSync(`/proc/${pid}/status`, 'utf8'), 'VmRSS');
      pss += kbField(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'), 'Pss');
    } catch {
      // Gone meanwhile.
    }
  }
  return { processes: pids.length, rssMB: rss / 1024, pssMB: pss / 1024 };
}

export function loadAverage(): string {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    return 'unknown';
  }
}

export interface MachineInfo {
  nproc: number;
  cpu: string;
  memoryGB: number;
  node: string;
  chromium: string;
  date: string;
  loadAtStart: string;
}

export function machineInfo(chromePath: string): MachineInfo {
  let cpu = 'unknown';
  try {
    cpu = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? cpu;
  } catch {
    // Not Linux.
  }
  let chromium = 'unknown';
  try {
    chromium = execFileSync(chromePath, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    // Reported as unknown.
  }
  return {
    nproc: availableParallelism(),
    cpu,
    memoryGB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    chromium,
    date: new Date().toISOString(),
    loadAtStart: loadAverage(),
  };
}

/** CPU time (user + system, in seconds) of the roots themselves and of everything below them. */
export function treeCpu(roots: readonly number[]): { rootS: number; childrenS: number } {
  const hz = 100; // USER_HZ on Linux
  let rootS = 0;
  let childrenS = 0;
  for (const pid of processTree(roots)) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // Fields 14 and 15 (utime, stime) of stat; f starts at field 3.
      const s = (Number(f[11]) + Number(f[12])) / hz;
      if (roots.includes(pid)) rootS += s;
      else childrenS += s;
    } catch {
      // Gone meanwhile.
    }
  }
  return { rootS, childrenS };
}
