import { PassThrough } from 'node:stream';
import { buildProgram, resolveConfig, startHttpGateway, type RunningHttpGateway } from '@browsermcp/gateway';

/** A gateway on an ephemeral loopback port, configured with CLI flags as a user would (headless, logs quiet). */
export async function startGateway(flags: string[] = []): Promise<RunningHttpGateway> {
  const program = buildProgram().exitOverride();
  program.parse(['--port', '0', '--headless', '--log-level', 'warn', ...flags], { from: 'user' });
  const config = resolveConfig(program, {});
  return startHttpGateway({ ...config, port: config.port ?? 0 }, { logStream: new PassThrough() });
}

export function refIn(snapshot: string, needle: string): string {
  const line = snapshot.split('\n').find((l) => l.includes(needle) && l.includes('[ref='));
  const ref = line && /\[ref=([^\]]+)\]/.exec(line)?.[1];
  if (!ref) throw new Error(`no ref for ${needle} in\n${snapshot}`);
  return ref;
}
