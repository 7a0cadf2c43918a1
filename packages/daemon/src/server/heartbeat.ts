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
