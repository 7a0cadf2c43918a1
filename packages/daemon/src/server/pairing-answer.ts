import { isPairingProof, pairingAddressProblem, pairingProof, SealedChannel, type PairingNonces } from '@browsermcp/protocol';
import type { FastifyBaseLogger } from 'fastify';
import { nodeFrameCipher } from './node-frame-cipher.js';

/** The pairing part of an extension's answer to `authenticate` (the protocol's pairing.ts). */
export interface PairingAnswer {
  nonce: string;
  proof: string;
  address: string;
}

/**
 * Checks an extension's pairing proof for this connection: made with the secret, for the address it dialled (which
 * must be this daemon's port: a program the extension dialled instead cannot relay the handshake here). Gives the
 * daemon's own proof and the sealed channel, or the refusal to close with.
 */
export async function checkPairing(
  secret: Uint8Array,
  daemonNonce: string,
  answer: PairingAnswer | undefined,
  port: number,
  log: FastifyBaseLogger,
): Promise<{ daemonProof: string; channel: SealedChannel } | { refusal: string }> {
  const nonces: PairingNonces = { daemon: daemonNonce, extension: answer?.nonce ?? '', address: answer?.address ?? '' };
  const elsewhere = answer ? pairingAddressProblem(answer.address, port) : undefined;
  if (elsewhere) {
    log.warn({ address: answer?.address }, 'refused an extension whose pairing was made for another address');
    return { refusal: `this browser's pairing was made for another address: ${elsewhere}` };
  }
  if (!answer || !(await isPairingProof(secret, 'extension', nonces, answer.proof))) {
    log.warn({ paired: answer !== undefined }, 'refused an extension that is not paired with this daemon');
    return {
      refusal: answer
        ? 'this browser is paired with another browsermcp: pair it again with the code browsermcp printed'
        : 'this browser is not paired: paste the code browsermcp printed into the extension',
    };
  }
  return { daemonProof: await pairingProof(secret, 'daemon', nonces), channel: await SealedChannel.create(secret, nonces, 'daemon', nodeFrameCipher) };
}
