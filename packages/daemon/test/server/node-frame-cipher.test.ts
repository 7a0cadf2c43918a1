import { newPairingNonce, newPairingSecret, SealedChannel } from '@browsermcp/protocol';
import { expect, it } from 'vitest';
import { nodeFrameCipher } from '../../src/server/node-frame-cipher';

const secret = newPairingSecret();
const nonces = { daemon: newPairingNonce(), extension: newPairingNonce(), address: 'ws://127.0.0.1:8765/extension' };

it("seals the daemon's frames with Node's AES-GCM as the extension's Web Crypto opens them, and the other way", async () => {
  const daemon = await SealedChannel.create(secret, nonces, 'daemon', nodeFrameCipher);
  const extension = await SealedChannel.create(secret, nonces, 'extension');
  const texts = ['{"name":"session_opened","payload":{"secrets":{"PASSWORD":"hunter2"}}}', '', 'ü'.repeat(70_000)];
  const frames = [];
  for (const text of texts) frames.push(await daemon.seal(text));
  for (const frame of frames) expect(frame).not.toContain('hunter2');
  expect(await Promise.all(frames.map((frame) => extension.open(frame)))).toEqual(texts);
  expect(await daemon.open(await extension.seal('{"type":"response"}'))).toBe('{"type":"response"}');

  // A frame out of its place, tampered or too short to hold a tag does not open, and nothing opens after it.
  const replayed = await extension.seal('first');
  expect(await daemon.open(await extension.seal('second'))).toBeUndefined();
  expect(await daemon.open(replayed)).toBeUndefined();
  const other = await SealedChannel.create(secret, nonces, 'daemon', nodeFrameCipher);
  const fresh = await SealedChannel.create(secret, nonces, 'extension');
  const sealed = JSON.parse(await fresh.seal('tampered')) as { sealed: string };
  const bytes = Buffer.from(sealed.sealed, 'base64url');
  bytes[0]! ^= 1;
  expect(await other.open(JSON.stringify({ sealed: bytes.toString('base64url') }))).toBeUndefined();
  const short = await SealedChannel.create(secret, nonces, 'daemon', nodeFrameCipher);
  expect(await short.open(JSON.stringify({ sealed: Buffer.alloc(8).toString('base64url') }))).toBeUndefined();
});
