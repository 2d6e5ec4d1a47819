/**
 * Gives up on a client that does not read its answer (issue #29). Node keeps what it
 * could not hand to the kernel in memory for as long as the connection lives: forty
 * clients asking for a large answer and never reading it held 4 GB. While an answer is
 * being written, the connection is closed once none of it has been taken for
 * `timeoutMs`. A client that reads, however slowly, keeps its connection; the timer is
 * armed only once the answer is ready, so a request the server itself takes long to
 * answer is not cut.
 */
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/**
 * Bytes of the answer the kernel has not taken yet. An answer is usually one write, and
 * Node counts it as pending (`writableLength`) until the last byte is out; libuv's
 * write queue shrinks as the client reads, so it shows progress within the write.
 */
function unsent(socket: Socket): number {
  const queue = (socket as Socket & { _handle?: { writeQueueSize?: unknown } })._handle?.writeQueueSize;
  return typeof queue === 'number' ? queue : socket.writableLength;
}

export function installResponseWriteTimeout(app: FastifyInstance, timeoutMs: number): void {
  app.addHook('onSend', async (_request, reply, payload) => {
    const response = reply.raw;
    const socket = response.socket;
    if (!socket) return payload;
    let queued = Number.POSITIVE_INFINITY;
    const check = setInterval(() => {
      if (response.writableFinished || socket.destroyed) return clearInterval(check);
      const now = unsent(socket);
      if (now > 0 && now >= queued) {
        clearInterval(check);
        socket.destroy();
        return;
      }
      queued = now;
    }, timeoutMs);
    check.unref();
    const stop = () => clearInterval(check);
    response.once('finish', stop);
    response.once('close', stop);
    return payload;
  });
}
