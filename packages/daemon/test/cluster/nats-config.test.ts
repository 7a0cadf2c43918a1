import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { createClusterMember, natsClusterConfig } from '../../src/cluster/nats-config';
import { redactNatsUrl } from '../../src/cluster/nats-connection';

const EXAMPLE = new URL('../../../../deploy/nats/cluster.example.conf', import.meta.url);

it('keeps deploy/nats/cluster.example.conf what `nats-config` writes for its daemons', () => {
  const text = readFileSync(EXAMPLE, 'utf8');
  const members = [...text.matchAll(/# daemon --instance-id (\S+)\n\s+\{ nkey: (U[A-Z2-7]{55})/g)].map(([, instanceId, nkey]) => ({
    instanceId: instanceId!,
    nkey: nkey!,
  }));
  expect(members.map((m) => m.instanceId)).toEqual(['d1', 'd2', 'd3']);
  // Regenerate it with: node -e "…natsClusterConfig({ members })" (see deploy/nats/README.md).
  expect(natsClusterConfig({ members })).toBe(text);
});

it('gives each daemon its own instance subject, inbox and directory keys, and no right to delete or purge', () => {
  const { member } = createClusterMember('east-1');
  const text = natsClusterConfig({ members: [member], prefix: 'team' });
  // Requests to any instance under its own name; only those addressed to it.
  expect(text).toContain('"team.instance.*.from.east-1"');
  expect(text).toContain('"_INBOX.team.east-1.>"');
  expect(text).toContain('"$KV.team_browsers.b.east-1.>"');
  expect(text).not.toMatch(/PURGE|STREAM\.DELETE|STREAM\.UPDATE|MSG\.DELETE|"\$JS\.API\.>"|"_INBOX\.>"/);
  const subscribe = /subscribe: \{ allow: \[([^\]]*)\]/.exec(text)![1]!.match(/"[^"]+"/g);
  expect(subscribe).toEqual(['"team.instance.east-1.from.*"', '"team.session-ended"', '"_INBOX.team.east-1.>"']);
  expect(text).not.toContain(member.nkey.replace(/^U/, 'S'));
  // The account's JetStream bounded: disk (--max-store), no memory streams, its two buckets, consumers per daemon.
  expect(text).toContain('jetstream: { max_file: 1G, max_mem: 0, max_streams: 2, max_consumers: 16 }');
  expect(natsClusterConfig({ members: [member], maxStore: '200M' })).toContain('max_file: 200M,');
  expect(() => natsClusterConfig({ members: [member], maxStore: '1 GB' })).toThrow('"1 GB" must be a size such as 512M or 4G');
  expect(() => natsClusterConfig({ members: [member, member] })).toThrow('instance id "east-1" is listed twice');
  expect(() => natsClusterConfig({ members: [{ instanceId: 'x', nkey: 'SUAB' }] })).toThrow('is not a public user nkey');
  expect(() => createClusterMember('a.b')).toThrow('must be 1-64 letters');
});

it('prints NATS URLs without their password or token', () => {
  expect(redactNatsUrl('nats://daemon:s3cret@10.0.0.5:4222,tls://tok3n@10.0.0.6:4222,nats://10.0.0.7:4222')).toBe(
    'nats://daemon:***@10.0.0.5:4222,tls://***@10.0.0.6:4222,nats://10.0.0.7:4222',
  );
});
