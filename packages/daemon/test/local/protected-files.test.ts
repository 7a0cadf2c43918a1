import { link, mkdir, mkdtemp, realpath, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { parseCli } from '../../src/cli-args.js';
import { NodeFileAccess } from '../../src/index.js';

/** A folder with the daemon's own files and an allowed root holding links to them. */
async function machine() {
  const home = await realpath(await mkdtemp(join(tmpdir(), 'bmcp-protected-')));
  const own = { secret: join(home, 'auth-secret'), seed: join(home, 'd1.nk'), profile: join(home, 'profile') };
  const shared = join(home, 'shared');
  await mkdir(shared);
  await mkdir(own.profile);
  await writeFile(own.secret, 'x'.repeat(40));
  await writeFile(own.seed, 'SUAEXAMPLESEED');
  await writeFile(join(own.profile, 'Cookies'), 'cookie jar');
  await writeFile(join(shared, 'report.txt'), 'for the page');
  await link(own.secret, join(shared, 'hard'));
  await symlink(own.seed, join(shared, 'soft'));
  await symlink(own.profile, join(shared, 'profile-link'));
  return { home, own, shared };
}

it("refuses the daemon's own files, links to them and the kernel's files, with unrestricted access and / as a root", async () => {
  const { home, own, shared } = await machine();
  for (const unrestricted of [false, true]) {
    const files = new NodeFileAccess({
      outputDir: join(home, 'out'),
      fileRoots: ['/'],
      allowUnrestrictedFileAccess: unrestricted,
      protectedPaths: Object.values(own),
    });
    for (const path of [
      own.secret,
      own.seed,
      join(own.profile, 'Cookies'),
      join(shared, 'hard'),
      join(shared, 'soft'),
      join(shared, 'profile-link', 'Cookies'),
    ]) {
      await expect(files.readable(path), path).rejects.toThrow("is one of this server's own files");
      await expect(files.readContents([path]), path).rejects.toThrow("is one of this server's own files");
    }
    for (const path of ['/proc/self/environ', '/proc/self/root/etc/hostname', '/sys/kernel/hostname', '/dev/zero', '/dev/fd/0']) {
      await expect(files.readContents([path]), path).rejects.toThrow(/system's view of processes and devices|one of this server's own files/);
    }
    expect((await files.readContents([join(shared, 'report.txt')]))[0]!.data).toBe(Buffer.from('for the page').toString('base64'));
  }
});

it('takes the list at each check, so a browser profile made after start is protected as soon as it exists', async () => {
  const { home, shared } = await machine();
  const later: string[] = [];
  const files = new NodeFileAccess({ outputDir: join(home, 'out'), fileRoots: [shared], protectedPaths: () => later });
  expect(await files.readable(join(shared, 'report.txt'))).toBe(join(shared, 'report.txt'));
  later.push(shared);
  await expect(files.readable(join(shared, 'report.txt'))).rejects.toThrow("is one of this server's own files");
});

it("the daemon's command line protects every file its flags name: token secret, NATS seed and TLS key, config, pairing secret, profile", async () => {
  const { home, own } = await machine();
  const key = join(home, 'tls.key');
  await writeFile(key, 'KEY');
  const config = join(home, 'config.json');
  await writeFile(config, '{}');
  const command = parseCli(
    [
      '--auth-secret-file',
      own.secret,
      '--nats',
      'nats://127.0.0.1:4222',
      '--nats-nkey-seed-file',
      own.seed,
      '--nats-tls-key',
      key,
      '--nats-tls-cert',
      key,
      '--config',
      config,
      '--user-data-dir',
      own.profile,
      '--pairing-file',
      join(home, 'pairing'),
    ],
    {},
  );
  if (command.kind !== 'serve') throw new Error(command.kind);
  expect(command.options.local?.protectedPaths).toEqual(expect.arrayContaining([own.secret, own.seed, key, config, own.profile, join(home, 'pairing')]));
});
