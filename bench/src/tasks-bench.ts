import { runTask, TASKS, type CallTool, type TaskOutcome } from '@browsermcp/realapps/tasks';
import type { FixtureServer } from '@browsermcp/testkit';
import { textOf } from './driver.js';
import type { LaunchedServer } from './servers.js';

/**
 * The real-app task suite (@browsermcp/realapps/tasks) against one server: every task as the scripted agent does it,
 * in one MCP session, judged by the page's own state; then the snapshot of each real-app page as the server gives it.
 */

export interface TaskRun {
  outcomes: TaskOutcome[];
  /** Characters of a plain browser_snapshot of each page once its app has rendered. */
  snapshotChars: Record<string, number>;
}

export async function runTasks(server: LaunchedServer, fx: FixtureServer, log?: (line: string) => void): Promise<TaskRun> {
  const connection = await server.connect('bench-tasks');
  try {
    const call: CallTool = async (name, args) => {
      const result = (await connection.client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as Parameters<typeof textOf>[0];
      return { text: textOf(result), isError: result.isError === true };
    };
    const outcomes: TaskOutcome[] = [];
    for (const task of TASKS) {
      const outcome = await runTask(task, call, (path) => fx.url(path));
      outcomes.push(outcome);
      log?.(
        `  ${server.spec.label}: ${task.id} ${outcome.done ? 'done' : outcome.falseSuccess ? 'FALSE SUCCESS' : 'failed'}, ${outcome.chars} chars${outcome.why ? ` (${outcome.why.slice(0, 160)})` : ''}`,
      );
    }
    const snapshotChars: Record<string, number> = {};
    for (const task of TASKS) {
      if (task.page in snapshotChars) continue;
      await call('browser_navigate', { url: fx.url(task.page.startsWith('/') ? task.page : `/realapps/${task.page}`) });
      await call('browser_wait_for', { text: task.ready });
      snapshotChars[task.page] = (await call('browser_snapshot', {})).text.length;
    }
    return { outcomes, snapshotChars };
  } finally {
    await connection.close();
  }
}
