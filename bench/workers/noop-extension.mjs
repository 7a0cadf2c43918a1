// A no-op "extension" for the router and cluster micro-benchmarks, in its own thread (the real one is another
// process): it says hello over the real /extension WebSocket and answers every command envelope at once with a tool
// result. With several `urls` it reconnects to the next at once when its socket drops (a daemon died), as the real
// extension reconnects to a load balancer.
import { parentPort, workerData } from 'node:worker_threads';
import { nodeFrameCipher } from '@browsermcp/daemon';
import { newPairingNonce, pairingProof, SealedChannel, signHold } from '@browsermcp/protocol';
import { WebSocket } from 'ws';

// `pairingSecret`: the daemons' (a CLI daemon without auth requires its extension to be paired); `accessToken`: the
// user's, where the daemons check tokens.
// `browserKey` (src/bench-browser-key.ts): its own key, as the real extension's: its id is the key's hash, and it signs
// the hold proofs a cluster asks for.
const { origin, pairingSecret, browserKey, accessToken } = workerData;
const { browserId, key } = browserKey;
const privateKey = await crypto.subtle.importKey('pkcs8', browserKey.pkcs8, 'Ed25519', false, ['sign']);
const urls = workerData.urls ?? [workerData.url];
let closing = false;
let attempt = 0;
let socket;

function open(index) {
  const url = urls[index % urls.length];
  const ws = new WebSocket(url, { origin, perMessageDeflate: false });
  socket = ws;
  // Paired, as the real extension: proofs for the address dialled, then every frame sealed, in order both ways.
  let nonces;
  let channel;
  let inbox = Promise.resolve();
  const send = (message) => {
    const text = JSON.stringify(message);
    if (channel) channel.send(text, (frame) => ws.send(frame));
    else ws.send(text);
  };
  const onMessage = async (text) => {
    const message = JSON.parse(text);
    // The daemon speaks first: its pairing question (answered with the proof), then `authenticated`: say hello.
    if (message.method === 'authenticate') {
      nonces = { daemon: message.params?.pairing?.nonce ?? '', extension: newPairingNonce(), address: url };
      const pairing =
        pairingSecret && message.params?.pairing
          ? { nonce: nonces.extension, address: url, proof: await pairingProof(pairingSecret, 'extension', nonces) }
          : undefined;
      send({ jsonrpc: '2.0', id: message.id, result: { name: 'bench', ...(accessToken ? { accessToken } : {}), ...(pairing ? { pairing } : {}) } });
      return;
    }
    if (message.method === 'authenticated') {
      // Node's AES-GCM, as the daemon's: a stand-in that should cost next to nothing (Web Crypto's ~50 µs a frame here).
      if (pairingSecret && message.params?.pairing) channel = await SealedChannel.create(pairingSecret, nonces, 'extension', nodeFrameCipher);
      send({
        wireId: `hello-${browserId}-${attempt++}`,
        sessionId: 'hello',
        type: 'event',
        name: 'hello',
        payload: { browserId, key, browser: 'bench', version: '0.0.0', tabs: [] },
      });
      parentPort.postMessage('open');
      return;
    }
    if (message.type === 'event' && message.name === 'prove_hold') {
      const { instance, at, user } = message.payload;
      send({
        wireId: `hold-${at}`,
        sessionId: 'hold',
        type: 'event',
        name: 'hold_proof',
        payload: { instance, at, sig: await signHold(privateKey, browserId, instance, at, user) },
      });
      return;
    }
    if (message.type !== 'command') return;
    send({
      wireId: message.wireId,
      sessionId: message.sessionId,
      type: 'response',
      name: message.name,
      data: { content: [{ type: 'text', text: 'ok' }] },
      tabId: message.tabId ?? `tab-${message.sessionId}`,
    });
  };
  ws.on('message', (raw) => {
    const text = raw.toString();
    // Frames are handled one after another (sealed ones open in order).
    inbox = inbox
      .then(async () => {
        const opened = channel ? await channel.open(text) : text;
        if (opened !== undefined) await onMessage(opened);
      })
      .catch(() => undefined);
  });
  ws.on('error', (error) => {
    if (urls.length === 1) parentPort.postMessage(`error: ${error.message}`);
  });
  ws.on('close', () => {
    if (!closing && urls.length > 1) open(index + 1);
  });
}

open(0);
parentPort.on('message', (m) => {
  if (m === 'close') {
    closing = true;
    socket.close();
  }
});
