import { runTask, TASKS, type CallTool } from '@browsermcp/realapps/tasks';
import { expect, it } from 'vitest';
import { callTool } from '../src/index.js';
import { INJECTED_KEY } from '../src/injected/key.js';
import { textOf, useHarness } from './harness.js';
import { walkAgainAndWhole } from './reuse-check.js';

// The `same` answer (a page asked again with no change since is not walked: src/injected/changes.ts) on pages built
// from real component libraries, changed the way their own code changes them while the scripted agent works: after
// every tool call, the last result is asked for again and, where the walk answers `same`, compared with a walk of the
// page as it is.
const h = useHarness();

it('answers `same` only for a page a walk shows the same, at every step of the real-app tasks', async () => {
  const mismatches: string[] = [];
  let sameAnswers = 0;
  const done: string[] = [];
  for (const task of TASKS) {
    const session = await h.session({ snapshotMaxChars: Infinity });
    const call: CallTool = async (name, args) => {
      const result = await callTool(session, name, args);
      const page = (await session.currentTab()).page;
      const both = await page.evaluate(walkAgainAndWhole, INJECTED_KEY).catch(() => null);
      if (both?.same) sameAnswers++;
      if (both && both.shown !== both.walked)
        mismatches.push(`${task.id} after ${name} ${JSON.stringify(args)}:\n${both.shown}\n--- the page now:\n${both.walked}`);
      return { text: textOf(result), isError: result.isError === true };
    };
    const outcome = await runTask(task, call, (path) => h.server.url(path.startsWith('/') ? path : `/realapps/${path}`));
    if (outcome.done) done.push(task.id);
    await session.closeAll();
  }
  expect(mismatches).toEqual([]);
  expect(done).toEqual(TASKS.map((t) => t.id));
  // The check holds trivially if no answer is ever `same`.
  expect(sameAnswers).toBeGreaterThan(5);
}, 600_000);
