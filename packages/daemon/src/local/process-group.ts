import { readdirSync, readFileSync } from 'node:fs';

/**
 * Kills what is left of a launched browser's process group (puppeteer starts Chromium detached, so the group id is
 * its pid) and waits, briefly, until no process of the group still runs. POSIX only: on Windows puppeteer kills the
 * tree itself.
 */
export async function killProcessGroup(pid: number, waitMs = 2000): Promise<void> {
  if (process.platform === 'win32') return;
  if (!signalGroup(pid, 'SIGKILL')) return;
  const deadline = Date.now() + waitMs;
  while (groupRuns(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
}

function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false; // ESRCH: the group is empty
  }
}

/**
 * Whether a process of the group still runs. Killed children are reparented to PID 1, and where PID 1 reaps late (a
 * container's init) they stay zombies for seconds: dead, holding nothing but a pid, yet `kill(-pgid, 0)` still
 * succeeds. On Linux /proc tells zombies apart; elsewhere the signal is all there is.
 */
function groupRuns(pgid: number): boolean {
  if (process.platform !== 'linux') return signalGroup(pgid, 0);
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return signalGroup(pgid, 0);
  }
  for (const entry of entries) {
    if (entry.charCodeAt(0) < 48 || entry.charCodeAt(0) > 57) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone between the listing and the read
    }
    // "pid (comm) state ppid pgrp …": comm may hold spaces and parentheses, so read after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') return true;
  }
  return false;
}
