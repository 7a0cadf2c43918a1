// A no-op "extension" for the router micro-benchmark, in its own thread (the real one is another process): it says
// hello over the real /extension WebSocket and answers every command envelope at once with a response envelope.
import { parentPort, workerData } from 'node:worker_threads';
import { WebSocket } from 'ws';

const { url, origin, browserId } = workerData;
const ws = new WebSocket(url, { origin, perMessageDeflate: false });
ws.on('open', () => {
  ws.send(JSON.stringify({ wireId: `hello-${browserId}`, sessionId: 'hello', type: 'event', name: 'hello', payload: { browserId, browser: 'bench', version: '0.0.0', tabs: [] } }));
  parentPort.postMessage('open');
});
ws.on('message', (raw) => {
  const message = JSON.parse(raw.toString());
  if (message.type !== 'command') return;
  ws.send(JSON.stringify({ wireId: message.wireId, sessionId: message.sessionId, type: 'response', name: message.name, data: { ok: true }, tabId: message.tabId ?? `tab-${message.sessionId}` }));
});
ws.on('error', (error) => parentPort.postMessage(`error: ${error.message}`));
parentPort.on('message', (m) => {
  if (m === 'close') ws.close();
});
