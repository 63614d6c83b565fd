import net from 'node:net';

export interface RawAnswer {
  /** The status of the first answer line, or null when the server closed without answering. */
  status: number | null;
  text: string;
}

/**
 * Writes bytes to a fresh connection and reads until the server closes it or `idleMs` pass without
 * data. For requests node:http cannot even produce (broken request lines, bad chunking, header
 * injection); the server's HTTP parser answers those itself.
 */
export function rawExchange(base: URL, bytes: Buffer, idleMs = 2000): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: base.hostname, port: Number(base.port) });
    const chunks: Buffer[] = [];
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      socket.destroy();
      const text = Buffer.concat(chunks).toString('latin1');
      const match = /^HTTP\/1\.[01] (\d{3})/.exec(text);
      resolve({ status: match?.[1] ? Number(match[1]) : null, text });
    };
    socket.setTimeout(idleMs, finish);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', finish);
    socket.on('close', finish);
    socket.on('error', finish);
    socket.on('connect', () => socket.write(bytes));
  });
}
