import type { FastifyInstance } from 'fastify';

// Stopping a server without failing a request that is already on its way (README "Stopping and
// restarting"). On close the listening socket stops accepting and idle keep-alive connections are closed
// at once; a request that is being served, or that arrives on a connection that was busy at that moment,
// is still served, and its answer carries `Connection: close` so the client takes its next request to
// another server instead of receiving a 503 here. Connections still open when the time is up are cut.

const closing = new WeakSet<FastifyInstance>();

/** Fastify options this needs: requests arriving while the server closes are served, not answered 503. */
export const gracefulCloseOptions = { return503OnClosing: false } as const;

export function installGracefulClose(app: FastifyInstance): void {
  app.addHook('onSend', async (_request, reply, payload) => {
    if (closing.has(app)) reply.header('Connection', 'close');
    return payload;
  });
}

/**
 * Stops accepting connections and waits for the requests in flight, at most `timeoutMs`; then closes
 * whatever is still open. Resolves with whether everything finished in time.
 */
export async function closeGracefully(app: FastifyInstance, timeoutMs: number): Promise<boolean> {
  closing.add(app);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  const closed = app.close().then(() => true);
  const inTime = await Promise.race([closed, timedOut]);
  clearTimeout(timer);
  if (!inTime) {
    app.server.closeAllConnections();
    await closed;
  }
  return inTime;
}
