/**
 * Closing the HTTP server without resetting anyone's connection.
 *
 * Node's `server.close()` stops accepting and, at the same moment, destroys every
 * keep-alive connection that is between two requests. A client that has just sent its
 * next request on such a connection sees it reset, and cannot know whether its write
 * was done: under load, that is a few connections in every shutdown. Instead, once
 * draining starts:
 *
 * - the listener closes (new connections are refused, which a client can retry safely);
 * - every request still arriving on an open connection is served, and its answer says
 *   `Connection: close` (Fastify adds it while closing; answers already being written
 *   when draining starts get it here when their headers are not sent yet);
 * - a connection is closed once it has been quiet (no request in progress) for
 *   IDLE_GRACE_MS, so a client that got its answer just before the drain has that long
 *   to send its next request and still be served.
 *
 * Nothing is tracked per request until draining starts: only connections are known.
 */
import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** How long a connection with no request in progress stays open once draining started. */
export const IDLE_GRACE_MS = 1000;

/** What Node keeps on a socket: the answer being written on it (the field http-terminator and others read too). */
type HttpSocket = Socket & { _httpMessage?: ServerResponse | null };

export interface ConnectionDrain {
  /** Starts draining: call before the HTTP server is closed. */
  start(): void;
}

export function trackConnections(server: Server, idleGraceMs = IDLE_GRACE_MS): ConnectionDrain {
  const sockets = new Set<HttpSocket>();
  const timers = new Map<HttpSocket, NodeJS.Timeout>();
  server.on('connection', (socket: HttpSocket) => {
    sockets.add(socket);
    socket.once('close', () => {
      sockets.delete(socket);
      clearTimeout(timers.get(socket));
      timers.delete(socket);
    });
  });

  const closeWhenQuiet = (socket: HttpSocket): void => {
    clearTimeout(timers.get(socket));
    if (socket.destroyed) return;
    const timer = setTimeout(() => {
      timers.delete(socket);
      if (socket._httpMessage) {
        // An answer is still being written: look again when it is done.
        socket._httpMessage.once('close', () => closeWhenQuiet(socket));
        return;
      }
      socket.destroy();
    }, idleGraceMs);
    timers.set(socket, timer);
  };

  return {
    start: () => {
      // Node's close() and Fastify's would end idle connections at once; here they get their grace.
      server.closeIdleConnections = () => undefined;
      server.on('request', (request, response: ServerResponse) => {
        const socket = request.socket as HttpSocket;
        clearTimeout(timers.get(socket));
        if (!response.headersSent) response.shouldKeepAlive = false;
        response.once('close', () => closeWhenQuiet(socket));
      });
      for (const socket of sockets) {
        const answer = socket._httpMessage;
        if (answer && !answer.headersSent) answer.shouldKeepAlive = false;
        closeWhenQuiet(socket);
      }
    },
  };
}
