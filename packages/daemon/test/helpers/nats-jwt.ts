import { createHash } from 'node:crypto';
import { createAccount, createOperator, createUser, type KeyPair } from '@nats-io/nkeys';

// Operator-mode NATS for tests: an operator, an account with JetStream, a user, each a signed JWT as nsc would make
// them (nats-io/jwt v2: an ed25519-nkey signature over the base64url header and claims), and the user's .creds file.

const b64 = (value: Uint8Array | string) => Buffer.from(value).toString('base64url');

function sign(issuer: KeyPair, subject: string, name: string, nats: Record<string, unknown>): string {
  const header = b64(JSON.stringify({ typ: 'JWT', alg: 'ed25519-nkey' }));
  const claims: Record<string, unknown> = { iat: Math.floor(Date.now() / 1000), iss: issuer.getPublicKey(), name, sub: subject, nats: { ...nats, version: 2 } };
  claims.jti = createHash('sha256').update(JSON.stringify(claims)).digest('base64url');
  const body = b64(JSON.stringify(claims));
  return `${header}.${body}.${b64(issuer.sign(new TextEncoder().encode(`${header}.${body}`)))}`;
}

export interface OperatorSetup {
  /** The nats-server configuration: the operator, and the account preloaded in a memory resolver. */
  config: string;
  /** A .creds file's text for a user of the account. */
  creds: string;
}

export function operatorSetup(): OperatorSetup {
  const operator = createOperator();
  // JetStream needs the server's own (system) account besides the cluster's.
  const system = createAccount();
  const account = createAccount();
  const user = createUser();
  const operatorJwt = sign(operator, operator.getPublicKey(), 'test-operator', { type: 'operator', system_account: system.getPublicKey() });
  const unlimited = { subs: -1, data: -1, payload: -1, imports: -1, exports: -1, wildcards: true, conn: -1, leaf: -1 };
  const jetstream = { mem_storage: -1, disk_storage: -1, streams: -1, consumer: -1 };
  const accountJwt = sign(operator, account.getPublicKey(), 'cluster', { type: 'account', limits: { ...unlimited, ...jetstream } });
  const systemJwt = sign(operator, system.getPublicKey(), 'SYS', { type: 'account', limits: unlimited });
  const userJwt = sign(account, user.getPublicKey(), 'daemon', { type: 'user', pub: {}, sub: {}, subs: -1, data: -1, payload: -1 });
  const seed = new TextDecoder().decode(user.getSeed());
  return {
    config: [
      `operator: ${operatorJwt}`,
      `system_account: ${system.getPublicKey()}`,
      'resolver: MEMORY',
      `resolver_preload: { ${system.getPublicKey()}: ${systemJwt}, ${account.getPublicKey()}: ${accountJwt} }`,
      '',
    ].join('\n'),
    creds: `-----BEGIN NATS USER JWT-----\n${userJwt}\n------END NATS USER JWT------\n\n-----BEGIN USER NKEY SEED-----\n${seed}\n------END USER NKEY SEED------\n`,
  };
}
