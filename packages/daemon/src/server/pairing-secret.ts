import { lstatSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { decodePairingSecret, encodePairingSecret, newPairingSecret } from '@browsermcp/protocol';
import { InvalidArgumentError } from '../errors.js';

/** Where the pairing secret lives unless --pairing-file says otherwise: the user's config directory. */
export function defaultPairingFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'browsermcp', 'pairing-secret');
}

/**
 * The secret a browser pairs with, kept in `file` so that the person pairs once: made on first use (the directory
 * 0700, the file 0600), and refused when another local user could read or have planted it (then the person would
 * not be the only one holding it).
 */
export function loadPairingSecret(file: string): { secret: Uint8Array; created: boolean } {
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    const secret = newPairingSecret();
    writeFileSync(file, `${encodePairingSecret(secret)}\n`, { mode: 0o600, flag: 'wx' });
    return { secret, created: true };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw new InvalidArgumentError(
        `--pairing-file ${file} cannot be created (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); choose a file in a directory you own`,
      );
    }
  }
  const stat = lstatSync(file);
  if (!stat.isFile())
    throw new InvalidArgumentError(`--pairing-file ${file} is not a plain file (a link or a directory): remove it, and browsermcp makes a new one`);
  if (process.platform !== 'win32') {
    if (typeof process.getuid === 'function' && stat.uid !== process.getuid()) {
      throw new InvalidArgumentError(`--pairing-file ${file} belongs to another user: remove it, and browsermcp makes a new one (then pair the browser again)`);
    }
    if ((stat.mode & 0o077) !== 0) {
      throw new InvalidArgumentError(
        `--pairing-file ${file} can be read by other users of this machine: run chmod 600 ${file}, or remove it and pair the browser again`,
      );
    }
  }
  const secret = decodePairingSecret(readFileSync(file, 'utf8'));
  if (!secret.ok)
    throw new InvalidArgumentError(`--pairing-file ${file} holds no pairing secret (${secret.message}): remove it, and browsermcp makes a new one`);
  return { secret: secret.value, created: false };
}
