import { RUST_BOOK_PAGE } from './pages.js';
import type { BenchResult, TaskResult, SessionResult, ThroughputRow } from './run.js';
import type { ServerId } from './servers.js';

export const START_MARK = '<!-- bench:peers:start (written by `npm run bench`; edits here are replaced) -->';
export const END_MARK = '<!-- bench:peers:end -->';

const ms = (x: number | undefined) => (x === undefined || Number.isNaN(x) ? '–' : x >= 100 ? `${x.toFixed(0)} ms` : `${x.toFixed(1)} ms`);
const int = (x: number) => Math.round(x).toLocaleString('en');
const ratio = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined || !b ? '–' : `${(a / b).toFixed(2)}×`);

function session(result: BenchResult, id: ServerId): SessionResult | undefined {
  return result.sessions.find((s) => s.id === id && !s.error);
}

function table(head: string[], rows: string[][]): string[] {
  return [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)];
}

export interface TargetRow {
  target: string;
  measured: string;
  met: boolean | null;
}

/** CPU time per tool call, server and browser together (ms): at saturation the honest measure of cost. */
const cpuMs = (t: ThroughputRow): number | undefined =>
  t.serverCpu === undefined || t.browserCpu === undefined || !t.callsPerSec ? undefined : ((t.serverCpu + t.browserCpu) * 10) / t.callsPerSec;

/** The issue's targets, judged from this run. */
export function targets(result: BenchResult): TargetRow[] {
  const rows: TargetRow[] = [];
  const ours = session(result, 'ours-stdio') ?? session(result, 'ours-http');
  const oursHttp = session(result, 'ours-http');
  const pw = session(result, 'playwright-mcp');
  const cdt = session(result, 'chrome-devtools-mcp');
  const big = `${Math.max(...result.options.rows).toLocaleString('en')}-row table`;
  const snap = (s: SessionResult | undefined) => s?.snapshots.find((p) => p.page === big);
  const act = (s: SessionResult | undefined, a: string) => s?.actions.find((x) => x.action === a);
  if (ours && pw && snap(ours) && snap(pw)) {
    const t = snap(ours)!.medianMs / snap(pw)!.medianMs;
    rows.push({
      target: `${big} snapshot time ≤ 0.15× @playwright/mcp`,
      measured: `${t.toFixed(3)}× (${ms(snap(ours)!.medianMs)} vs ${ms(snap(pw)!.medianMs)})`,
      met: t <= 0.15,
    });
    const s = snap(ours)!.chars / snap(pw)!.chars;
    rows.push({
      target: `${big} snapshot size ≤ 0.5× @playwright/mcp`,
      measured: `${s.toFixed(3)}× (${int(snap(ours)!.chars)} vs ${int(snap(pw)!.chars)} chars)`,
      met: s <= 0.5,
    });
  }
  const book = (s: SessionResult | undefined) => s?.snapshots.find((p) => p.page === RUST_BOOK_PAGE);
  if (ours && book(ours)) {
    const mine = book(ours)!;
    const theirs = book(pw);
    const t = theirs ? mine.medianMs / theirs.medianMs : undefined;
    rows.push({
      target: 'Rust book (1.9 MB real page) uncut snapshot ≤ 300 ms and ≤ 0.15× @playwright/mcp',
      measured: `${ms(mine.medianMs)}${t !== undefined ? `, ${t.toFixed(3)}× (vs ${ms(theirs!.medianMs)})` : ''}`,
      met: mine.medianMs <= 300 && (t === undefined || t <= 0.15),
    });
    if (mine.unchangedMs !== undefined) {
      rows.push({
        target: 'Rust book snapshot again, page unchanged: costs ~nothing',
        measured: `${ms(mine.unchangedMs)} (changed page: ${ms(mine.medianMs)})`,
        met: mine.unchangedMs <= mine.medianMs / 5,
      });
    }
  }
  if (ours && cdt && act(ours, 'click') && act(cdt, 'click')) {
    const r = act(ours, 'click')!.p50 / act(cdt, 'click')!.p50;
    rows.push({
      target: 'click p50 ≤ 0.2× chrome-devtools-mcp',
      measured: `${r.toFixed(3)}× (${ms(act(ours, 'click')!.p50)} vs ${ms(act(cdt, 'click')!.p50)})`,
      met: r <= 0.2,
    });
  }
  const evals = [oursHttp, session(result, 'ours-stdio')].filter((s): s is SessionResult => !!s && !!act(s, 'evaluate'));
  if (evals.length > 0) {
    const worst = Math.max(...evals.map((s) => act(s, 'evaluate')!.p50));
    rows.push({
      target: 'evaluate p50 ≤ 10 ms',
      measured: evals.map((s) => `${ms(act(s, 'evaluate')!.p50)} over ${s.id === 'ours-http' ? 'HTTP' : 'stdio'}`).join(', '),
      met: worst <= 10,
    });
  }
  const load = result.throughput.filter((t) => t.id === 'ours-http' && !t.error);
  const one = load.find((t) => t.sessions === 1);
  const most = load.reduce<(typeof load)[number] | undefined>((a, t) => (!a || t.sessions > a.sessions ? t : a), undefined);
  if (one && most && most.sessions > 1) {
    const r = most.p95 / one.p95;
    rows.push({
      target: `${most.sessions} concurrent sessions: no errors, p95 ≤ 2× the single-session p95`,
      measured: `${most.errors} errors; p95 ${ms(most.p95)} = ${r.toFixed(2)}× ${ms(one.p95)}`,
      met: most.errors === 0 && r <= 2,
    });
  }
  const peer = most && result.throughput.find((t) => t.id === 'playwright-mcp-http' && !t.error && t.sessions === most.sessions);
  const mineCpu = most && cpuMs(most);
  const theirCpu = peer && cpuMs(peer);
  if (most && mineCpu !== undefined && theirCpu !== undefined) {
    rows.push({
      target: `CPU per tool call at ${most.sessions} sessions ≤ 0.5× @playwright/mcp`,
      measured: `${(mineCpu / theirCpu).toFixed(3)}× (${ms(mineCpu)} vs ${ms(theirCpu)})`,
      met: mineCpu / theirCpu <= 0.5,
    });
  }
  const mineTasks = result.tasks.find((t) => t.id.startsWith('ours') && t.outcomes);
  const theirTasks = result.tasks.find((t) => t.id === 'playwright-mcp' && t.outcomes);
  if (mineTasks && theirTasks) {
    const done = (t: TaskResult) => t.outcomes!.filter((o) => o.done).length;
    const lost = theirTasks.outcomes!.filter((o) => o.done && !mineTasks.outcomes!.find((m) => m.id === o.id)?.done).map((o) => o.id);
    rows.push({
      target: 'real-app tasks: none that @playwright/mcp completes lost, no false success',
      measured: `${done(mineTasks)} vs ${done(theirTasks)} of ${mineTasks.outcomes!.length}; false successes ${mineTasks.outcomes!.filter((o) => o.falseSuccess).length} vs ${theirTasks.outcomes!.filter((o) => o.falseSuccess).length}${lost.length ? `; lost: ${lost.join(', ')}` : ''}`,
      met: lost.length === 0 && !mineTasks.outcomes!.some((o) => o.falseSuccess),
    });
    const perTask = charsPerSharedTask(result);
    const r = perTask.get(mineTasks.label)! / perTask.get(theirTasks.label)!;
    rows.push({
      target: 'characters the agent reads per real-app task ≤ 0.5× @playwright/mcp',
      measured: `${r.toFixed(3)}× (${int(perTask.get(mineTasks.label)!)} vs ${int(perTask.get(theirTasks.label)!)})`,
      met: r <= 0.5,
    });
    const pages = Object.keys(mineTasks.snapshotChars ?? {}).filter((p) => theirTasks.snapshotChars?.[p]);
    if (pages.length) {
      const worst = pages.reduce((w, p) => Math.max(w, mineTasks.snapshotChars![p]! / theirTasks.snapshotChars![p]!), 0);
      rows.push({
        target: 'snapshot on each real-app page ≤ 0.7× @playwright/mcp',
        measured: `at most ${worst.toFixed(3)}× (${pages.length} page${pages.length === 1 ? '' : 's'})`,
        met: worst <= 0.7,
      });
    }
  }
  if (result.router && result.router.length > 0) {
    const ok = result.router.filter((l) => l.p99 <= 5 && l.errors === 0);
    const best = (ok.length ? ok : result.router).reduce((a, l) => (l.envelopesPerSec > a.envelopesPerSec ? l : a));
    rows.push({
      target: 'router ≥ 20,000 envelopes/s with p99 ≤ 5 ms',
      measured: `${int(best.envelopesPerSec)} envelopes/s (${int(best.commandsPerSec)} commands + as many responses) at ${best.sessions} sessions, p99 ${ms(best.p99)}`,
      met: best.envelopesPerSec >= 20_000 && best.p99 <= 5,
    });
  }
  return rows;
}

export function renderMarkdown(result: BenchResult, command: string): string {
  const m = result.machine;
  const o = result.options;
  const out: string[] = [START_MARK, ''];
  out.push(
    `Command: \`${command}\` (${m.date.slice(0, 10)}, ${result.durationS.toFixed(0)} s). Machine: ${m.nproc} × ${m.cpu}, ${m.memoryGB} GB, ` +
      `Node ${m.node}, ${m.chromium}; load average at start ${m.loadAtStart}. Versions: ${Object.entries(result.versions)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}${result.build ? ` (our build ${result.build})` : ''}.`,
    '',
    'Every server drives the same Chromium binary, headless, with an in-memory profile, `--no-sandbox` (root) and the quiet flags; ' +
      'the official SDK `Client` drives all of them; pages come from the testkit fixture server on 127.0.0.1. Ours runs with ' +
      '`--snapshot-max-chars 10000000` (uncut, as the peers are; the default cuts at 40,000 characters). Sizes are the characters of ' +
      "all text parts of the tool's answer, as a model receives them; tokens ≈ chars / 4. Each action is one tool call with the " +
      "server's defaults (ours and @playwright/mcp answer navigate/click/type with page state; chrome-devtools-mcp answers a click " +
      'with a line). chrome-devtools-mcp speaks stdio only, so its "10 sessions" are 10 processes; ratios compare same transports (stdio).',
  );
  for (const n of result.notes) out.push('', `Note: ${n}`);

  const ok = result.sessions.filter((s) => !s.error);
  const pages = ok[0]?.snapshots.map((p) => p.page) ?? [];
  out.push('', `### Snapshot time (median of ${o.snapshotRuns}, the page changed before each; min in brackets; then asked again unchanged)`, '');
  /** A table with a row per key and a column per server: what `cell` says of the server's row for the key, '–' without one. */
  const perServer = <K, R>(first: string, keys: readonly K[], rowOf: (s: SessionResult, key: K) => R | undefined, cell: (row: R) => string) =>
    table(
      [first, ...ok.map((s) => s.label)],
      keys.map((key) => [
        String(key),
        ...ok.map((s) => {
          const row = rowOf(s, key);
          return row ? cell(row) : '–';
        }),
      ]),
    );
  const snapshotOf = (s: SessionResult, page: string) => s.snapshots.find((x) => x.page === page);
  out.push(
    ...perServer(
      'page',
      pages,
      snapshotOf,
      (row) => `${ms(row.medianMs)} (${ms(row.minMs)})${row.unchangedMs !== undefined ? `; again ${ms(row.unchangedMs)}` : ''}`,
    ),
  );
  out.push('', '### Snapshot size (characters / ≈ tokens)', '');
  out.push(...perServer('page', pages, snapshotOf, (row) => `${int(row.chars)} / ${int(row.chars / 4)}`));
  out.push('', `### Round trips, p50 / p95 (${o.iterations} calls each)`, '');
  const actions = ['click', 'type', 'navigate', 'evaluate'] as const;
  out.push(
    ...perServer(
      'action',
      actions,
      (s, action) => s.actions.find((x) => x.action === action),
      (row) => `${ms(row.p50)} / ${ms(row.p95)}`,
    ),
  );
  for (const s of result.sessions.filter((x) => x.error)) out.push('', `${s.label} failed: ${s.error}`);

  const ours = session(result, 'ours-stdio');
  const peers = (['playwright-mcp', 'chrome-devtools-mcp'] as const).map((id) => session(result, id)).filter((s): s is SessionResult => !!s);
  if (ours && peers.length) {
    out.push('', '### Ratios ours / peer (browsermcp over stdio against each peer over stdio; below 1 is better for us)', '');
    const rows: string[][] = [];
    for (const p of pages) {
      const a = ours.snapshots.find((x) => x.page === p);
      rows.push([`${p} snapshot time`, ...peers.map((peer) => ratio(a?.medianMs, peer.snapshots.find((x) => x.page === p)?.medianMs))]);
      rows.push([`${p} snapshot size`, ...peers.map((peer) => ratio(a?.chars, peer.snapshots.find((x) => x.page === p)?.chars))]);
    }
    for (const a of actions)
      rows.push([`${a} p50`, ...peers.map((peer) => ratio(ours.actions.find((x) => x.action === a)?.p50, peer.actions.find((x) => x.action === a)?.p50))]);
    out.push(...table(['measure', ...peers.map((p) => p.label)], rows));
  }

  if (result.memory.length) {
    out.push('', `### Memory with ${o.memorySessions} sessions open (each on the 300-row table, after a snapshot)`, '');
    out.push(
      "Sum over the server process and everything below it (Chromium), from /proc. RSS counts pages Chromium's processes share once per process; PSS splits them.",
      '',
    );
    out.push(
      ...table(
        ['server', 'processes', 'RSS sum', 'PSS sum', 'PSS per session'],
        result.memory.map((x) =>
          x.error
            ? [x.label, '–', `failed: ${x.error}`, '–', '–']
            : [x.label, String(x.processes), `${int(x.rssMB)} MB`, `${int(x.pssMB)} MB`, `${(x.pssMB / x.sessions).toFixed(0)} MB`],
        ),
      ),
    );
    const oursMem = result.memory.find((x) => x.id === 'ours-http' && !x.error);
    const cmp = result.memory.filter((x) => x.id !== 'ours-http' && x.id !== 'ours-stdio' && !x.error);
    if (oursMem && cmp.length)
      out.push(
        '',
        `Ours over HTTP / peer: ${cmp.map((x) => `${x.label} RSS ${ratio(oursMem.rssMB, x.rssMB)}, PSS ${ratio(oursMem.pssMB, x.pssMB)}`).join('; ')}.`,
      );
  }

  if (result.throughput.length) {
    out.push('', `### Throughput: concurrent HTTP sessions looping navigate → snapshot → click for ${o.throughputSeconds} s`, '');
    const pct = (x: number | undefined) => (x === undefined ? '–' : `${x.toFixed(0)} %`);
    out.push(
      'CPU is in % of one core over the window (the machine has ' +
        `${result.machine.nproc}` +
        "): the server's Node process, and everything below it (Chromium). Each window starts once the sessions are open and the server and its browser have been quiet (under a tenth of a core) for two seconds: Chromium works on for seconds after a new context's first page (about 0.7 core-seconds each here), which would otherwise be charged to the first calls.",
      '',
    );
    const cpuCell = (t: ThroughputRow) => {
      const v = cpuMs(t);
      return v === undefined ? '–' : `${v.toFixed(0)} ms`;
    };
    out.push(
      ...table(
        ['server', 'sessions', 'calls/s', 'p50', 'p95', 'errors', 'server CPU', 'browser CPU', 'CPU per call'],
        result.throughput.map((t) =>
          t.error
            ? [t.label, String(t.sessions), `failed: ${t.error}`, '–', '–', '–', '–', '–', '–']
            : [
                t.label,
                String(t.sessions),
                t.callsPerSec.toFixed(1),
                ms(t.p50),
                ms(t.p95),
                t.errors ? `${t.errors} (${t.firstError ?? ''})` : '0',
                pct(t.serverCpu),
                pct(t.browserCpu),
                cpuCell(t),
              ],
        ),
      ),
    );
    const ratios = o.concurrency
      .map((n) => {
        const a = result.throughput.find((t) => t.id === 'ours-http' && t.sessions === n && !t.error);
        const b = result.throughput.find((t) => t.id === 'playwright-mcp-http' && t.sessions === n && !t.error);
        if (!a || !b) return undefined;
        const ca = cpuMs(a);
        const cb = cpuMs(b);
        return `${n}: calls/s ${ratio(a.callsPerSec, b.callsPerSec)}, p95 ${ratio(a.p95, b.p95)}${ca !== undefined && cb !== undefined ? `, CPU per call ${ratio(ca, cb)}` : ''}`;
      })
      .filter(Boolean);
    if (ratios.length)
      out.push(
        '',
        `Ours / @playwright/mcp by sessions — ${ratios.join('; ')}. chrome-devtools-mcp is not in this table: it serves one client per process over stdio.`,
      );
  }

  if (result.router || result.routerError) {
    out.push('', `### Router micro-benchmark (${o.router?.seconds ?? 0} s per level)`, '');
    out.push(
      "`SessionRouter` → `/extension` WebSocket (the daemon's Fastify app on 127.0.0.1) → a no-op extension in a worker thread that answers " +
        'each command envelope at once → back to the caller. Closed loop: each session sends its next command when the last is answered. ' +
        'Envelopes/s counts the command and its response.',
      '',
    );
    if (result.routerError) out.push(`Failed: ${result.routerError}`);
    else
      out.push(
        ...table(
          ['sessions', 'commands/s', 'envelopes/s', 'p50', 'p99', 'errors'],
          result.router!.map((l) => [String(l.sessions), int(l.commandsPerSec), int(l.envelopesPerSec), ms(l.p50), ms(l.p99), String(l.errors)]),
        ),
      );
  }

  out.push(...tasksSection(result));

  const t = targets(result);
  if (t.length) {
    out.push('', '### Targets of the benchmark issue, judged in this run', '');
    out.push(
      ...table(
        ['target', 'measured', 'met'],
        t.map((r) => [r.target, r.measured, r.met === null ? '–' : r.met ? 'yes' : '**no**']),
      ),
    );
  }
  out.push('', END_MARK);
  return out.join('\n');
}

/** Puts the rendered section into a BENCHMARKS.md text: replaces the old one, or adds it under a heading at the end. */
export function spliceSection(
  doc: string,
  section: string,
  heading = '## Side by side with @playwright/mcp and chrome-devtools-mcp',
  marks: { start: string; end: string } = { start: START_MARK, end: END_MARK },
): string {
  const start = doc.indexOf(marks.start);
  const end = doc.indexOf(marks.end);
  if (start >= 0 && end > start) return doc.slice(0, start) + section + doc.slice(end + marks.end.length);
  return `${doc.trimEnd()}\n\n${heading}\n\n${section}\n`;
}

/** Characters the agent read per task, over the tasks every server completed (a failed task reads less). */
export function charsPerSharedTask(result: BenchResult): Map<string, number> {
  const runs = result.tasks.filter((t) => t.outcomes);
  const shared = (runs[0]?.outcomes ?? []).map((o) => o.id).filter((id) => runs.every((r) => r.outcomes!.find((o) => o.id === id)?.done));
  return new Map(
    runs.map((r) => [r.label, shared.length ? r.outcomes!.filter((o) => shared.includes(o.id)).reduce((n, o) => n + o.chars, 0) / shared.length : Number.NaN]),
  );
}

/** The real-app task suite side by side: each task, what was done, and what the agent had to read. */
function tasksSection(result: BenchResult): string[] {
  if (!result.tasks.length) return [];
  const out: string[] = ['', "### Real-app tasks (a scripted agent reading only the answers; judged by the page's own state)", ''];
  out.push(
    'Each task opens its page, finds what it needs by role and name in the answers it was given (a snapshot when the last ' +
      'answer showed none), acts, and is checked by a function the page runs. A false success: every tool answered as if it ' +
      'had worked, yet the page does not show it. Characters: all the text the agent read, from navigate to its last action.',
    '',
  );
  const runs = result.tasks;
  for (const r of runs) if (r.error) out.push(`${r.label} failed: ${r.error}`, '');
  const ok = runs.filter((r) => r.outcomes);
  const ids = ok[0]?.outcomes?.map((o) => o.id) ?? [];
  const cell = (r: TaskResult, id: string) => {
    const o = r.outcomes!.find((x) => x.id === id);
    if (!o) return '–';
    return `${o.done ? 'done' : o.falseSuccess ? '**false success**' : 'failed'}, ${int(o.chars)}`;
  };
  out.push(
    ...table(
      ['task', 'library', ...ok.map((r) => r.label)],
      ids.map((id) => [id, ok[0]!.outcomes!.find((o) => o.id === id)!.library, ...ok.map((r) => cell(r, id))]),
    ),
  );
  const perTask = charsPerSharedTask(result);
  out.push(
    '',
    ...table(
      ['', ...ok.map((r) => r.label)],
      [
        ['tasks done', ...ok.map((r) => `${r.outcomes!.filter((o) => o.done).length} of ${r.outcomes!.length}`)],
        ['false successes', ...ok.map((r) => String(r.outcomes!.filter((o) => o.falseSuccess).length))],
        ['characters read per task (tasks all completed)', ...ok.map((r) => int(perTask.get(r.label) ?? Number.NaN))],
        [
          'characters read over the suite ÷ tasks done',
          ...ok.map((r) => int(r.outcomes!.reduce((n, o) => n + o.chars, 0) / Math.max(1, r.outcomes!.filter((o) => o.done).length))),
        ],
      ],
    ),
  );
  const pages = Object.keys(ok[0]?.snapshotChars ?? {});
  if (pages.length) {
    out.push('', '### Snapshot size on the real-app pages (characters of browser_snapshot)', '');
    out.push(
      ...table(
        ['page', ...ok.map((r) => r.label)],
        pages.map((p) => [p, ...ok.map((r) => int(r.snapshotChars?.[p] ?? Number.NaN))]),
      ),
    );
  }
  return out;
}
