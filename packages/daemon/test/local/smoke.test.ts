import { startFixtureServer } from '@browsermcp/testkit';
import { expect, it } from 'vitest';
import { LocalExecutor, SessionRouter } from '../../src/index.js';

it('runs a tool through the router on a launched browser', async () => {
  const server = await startFixtureServer();
  const router = new SessionRouter({ defaultExecutorId: 'local' });
  const executor = new LocalExecutor(router, { outputDir: '/tmp/bmcp-out' });
  await router.executorConnected(executor);
  await router.openSession('s1');
  const result = (await router.dispatch('s1', { name: 'browser_navigate', payload: { url: server.url('/index.html') } })) as { content: Array<{ text: string }> };
  console.log(result.content[0]!.text.slice(0, 300));
  expect(result.content[0]!.text).toContain('Fixture home');
  await router.closeSession('s1');
  await executor.close();
  await router.close();
  await server.close();
});
