import type { WebSocket } from 'ws';

/**
 * Pings the peer every `intervalMs`; a peer that has not answered (pong or any message) since the previous ping is
 * terminated, so a dead peer is found within two intervals instead of waiting for TCP. Stops when the socket closes.
 */
export function watchHeartbeat(socket: WebSocket, intervalMs: number): void {
  let alive = true;
  const markAlive = (): void => {
    alive = true;
  };
  socket.on('pong', markAlive);
  socket.on('message', markAlive);
  const timer = setInterval(() => {
    if (!alive) {
      socket.terminate();
      return;
    }
    alive = false;
    socket.ping();
  }, intervalMs);
  // A heartbeat alone is no reason to keep the process up at shutdown.
  timer.unref();
  socket.once('close', () => clearInterval(timer));
}

/** Pings in flight, by socket: questions that overlap share one. */
const pinging = new WeakMap<WebSocket, Promise<boolean>>();

/**
 * Whether the peer is still there, asked now (answersPing; one ping for questions that overlap). One that does not
 * answer is dropped at once: it has gone, and what it held is away from here, as its close then says.
 */
export function stillThere(socket: WebSocket, timeoutMs: number): Promise<boolean> {
  let ping = pinging.get(socket);
  if (ping === undefined) {
    ping = answersPing(socket, timeoutMs).then((alive) => {
      pinging.delete(socket);
      if (!alive) socket.terminate();
      return alive;
    });
    pinging.set(socket, ping);
  }
  return ping;
}

/**
 * Whether the peer answers a ping (or says anything) within `timeoutMs` now: a socket whose peer went away without
 * closing (a laptop that slept, a network that changed) still looks open until the heartbeat finds it out.
 */
export function answersPing(socket: WebSocket, timeoutMs: number): Promise<boolean> {
  if (socket.readyState !== socket.OPEN) return Promise.resolve(false);
  return new Promise((resolve) => {
    let settled = false;
    const done = (alive: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.off('pong', onAnswer);
      socket.off('message', onAnswer);
      resolve(alive);
    };
    const onAnswer = () => done(true);
    // Decided after what has arrived meanwhile is read: a process busy past the timeout may hold the pong unread.
    const timer = setTimeout(() => setImmediate(() => done(false)), timeoutMs);
    socket.on('pong', onAnswer);
    socket.on('message', onAnswer);
    socket.ping();
  });
}
