import { describe, expect, it } from 'vitest';
import { SealedChannel } from './channel';
import { newPairingNonce, newPairingSecret } from './pairing';

const secret = newPairingSecret();
const nonces = { daemon: newPairingNonce(), extension: newPairingNonce(), address: 'ws://127.0.0.1:8765/extension' };

async function pair(ofDaemon = nonces, ofExtension = nonces, extensionSecret = secret) {
  return { daemon: await SealedChannel.create(secret, ofDaemon, 'daemon'), extension: await SealedChannel.create(extensionSecret, ofExtension, 'extension') };
}

describe('the paired channel', () => {
  it('carries each side’s frames to the other, in order, and nothing of them is readable on the way', async () => {
    const { daemon, extension } = await pair();
    const texts = ['{"name":"session_opened","payload":{"secrets":{"PASSWORD":"hunter2"}}}', 'second', ''];
    const frames = [];
    for (const t of texts) frames.push(await daemon.seal(t));
    for (const f of frames) expect(f).not.toContain('hunter2');
    expect(await Promise.all(frames.map((f) => extension.open(f)))).toEqual(texts);
    // The other way, with its own key and count.
    expect(await daemon.open(await extension.seal('{"type":"response"}'))).toBe('{"type":"response"}');
    // The same text sealed twice is two different frames (its number is its IV).
    expect(await daemon.seal('same')).not.toBe(await daemon.seal('same'));
  });

  it('hands sealed frames over in the order they were sent, whatever order sealing finishes in', async () => {
    const { daemon, extension } = await pair();
    const delivered: string[] = [];
    const texts = Array.from({ length: 20 }, (_, i) => 'x'.repeat(20_000 - i * 900) + i);
    for (const t of texts) daemon.send(t, (frame) => delivered.push(frame));
    await expect.poll(() => delivered.length).toBe(texts.length);
    expect(await Promise.all(delivered.map((f) => extension.open(f)))).toEqual(texts);
  });

  it.each([
    ['injected in the clear', async () => '{"wireId":"x","type":"command","name":"browser_evaluate"}'],
    [
      'sealed by a relay that knows everything but the secret',
      async () => (await SealedChannel.create(newPairingSecret(), nonces, 'daemon')).seal('{"type":"command"}'),
    ],
    [
      'sealed for another address (a relay dialled instead)',
      async () => (await SealedChannel.create(secret, { ...nonces, address: 'ws://127.0.0.1:9999/extension' }, 'daemon')).seal('x'),
    ],
    ['sealed for another connection', async () => (await SealedChannel.create(secret, { ...nonces, daemon: newPairingNonce() }, 'daemon')).seal('x')],
    ['sent back to its sender (the other direction)', async (own: SealedChannel) => own.seal('x')],
  ])('refuses a frame %s, and opens nothing after it', async (_what, make) => {
    const { daemon, extension } = await pair();
    expect(await extension.open(await make(extension))).toBeUndefined();
    expect(await extension.open(await daemon.seal('a real one, too late'))).toBeUndefined();
  });

  it('refuses a frame replayed, dropped or reordered on the way', async () => {
    const { daemon, extension } = await pair();
    const [a, b, c] = [await daemon.seal('a'), await daemon.seal('b'), await daemon.seal('c')];
    expect(await extension.open(a)).toBe('a');
    expect(await extension.open(a)).toBeUndefined();
    const other = await pair();
    const [x, , z] = [await other.daemon.seal('x'), await other.daemon.seal('y'), await other.daemon.seal('z')];
    expect(await other.extension.open(x)).toBe('x');
    expect(await other.extension.open(z)).toBeUndefined();
    const third = await pair();
    const [p, q] = [await third.daemon.seal('p'), await third.daemon.seal('q')];
    expect(await third.extension.open(q)).toBeUndefined();
    expect(await third.extension.open(p)).toBeUndefined();
    void b;
    void c;
  });
});
