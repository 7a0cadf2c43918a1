// A no-op "extension" for the router and cluster micro-benchmarks, in its own thread (the real one is another
// process): it says hello over the real /extension WebSocket and answers every command envelope at once with a tool
// result. With several `urls` it reconnects to the next at once when its socket drops (a daemon died), as the real
// extension reconnects to a load balancer.
import { parentPort, workerData } from 'node:worker_threads';
import { WebSocket } from 'ws';

const { origin, browserId } = workerData;
const urls = workerData.urls ?? [workerData.url];
let closing = false;
let attempt = 0;
let socket;

function open(index) {
  const ws = new WebSocket(urls[index % urls.length], { origin, perMessageDeflate: false });
  socket = ws;
  ws.on('open', () => {
    ws.send(JSON.stringify({ wireId: `hello-${browserId}-${attempt++}`, sessionId: 'hello', type: 'event', name: 'hello', payload: { browserId, browser: 'bench', version: '0.0.0', tabs: [] } }));
    parentPort.postMessage('open');
  });
  ws.on('message', (raw) => {
    const message = JSON.parse(raw.toString());
    if (message.type !== 'command') return;
    ws.send(JSON.stringify({ wireId: message.wireId, sessionId: message.sessionId, type: 'response', name: message.name, data: { content: [{ type: 'text', text: 'ok' }] }, tabId: message.tabId ?? `tab-${message.sessionId}` }));
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
