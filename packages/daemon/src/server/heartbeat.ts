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

/**
 * Whether the peer answers a ping within `timeoutMs` now: a socket whose peer went away without closing (a laptop
 * that slept, a network that changed) still looks open until the heartbeat finds it out.
 */
export function answersPing(socket: WebSocket, timeoutMs: number): Promise<boolean> {
  if (socket.readyState !== socket.OPEN) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (alive: boolean) => {
      clearTimeout(timer);
      socket.off('pong', onPong);
      resolve(alive);
    };
    const onPong = () => done(true);
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.on('pong', onPong);
    socket.ping();
  });
}
