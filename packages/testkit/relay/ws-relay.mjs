// A relay process (startWsRelay in src/ws-relay.ts), as an attacker on the machine runs one: it listens where the extension dials, forwards every
// frame both ways to the real daemon (argv[2]), and writes each one to stdout ("frame <way> <text>"), so a test reads
// what it learnt. With argv[3] set, it also injects that text towards the daemon once the daemon said "authenticated".
import { WebSocket, WebSocketServer } from 'ws';

const [target, inject] = process.argv.slice(2);
const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
server.on('listening', () => process.stdout.write(`listening ${server.address().port}\n`));
server.on('connection', (browser, request) => {
  const daemon = new WebSocket(target, { origin: request.headers.origin });
  const pending = [];
  daemon.on('open', () => {
    for (const text of pending.splice(0)) daemon.send(text);
  });
  browser.on('message', (data) => {
    const text = data.toString();
    process.stdout.write(`frame to-daemon ${text}\n`);
    if (daemon.readyState === WebSocket.OPEN) daemon.send(text);
    else pending.push(text);
  });
  daemon.on('message', (data) => {
    const text = data.toString();
    process.stdout.write(`frame to-browser ${text}\n`);
    browser.send(text);
    if (inject && text.includes('"authenticated"')) {
      process.stdout.write(`injected ${inject}\n`);
      daemon.send(inject);
    }
  });
  daemon.on('close', (code, reason) => {
    process.stdout.write(`closed by the daemon ${code} ${reason.toString()}\n`);
    browser.close(code === 1005 ? 1000 : code, reason.toString());
  });
  browser.on('close', () => daemon.close());
});
