// A TCP server on 127.0.0.1 for S3 client tests that need no gateway. It records the head of
// every request and either never answers (to test timeouts) or answers each request with a fixed
// HTTP response. `stop()` destroys open connections and closes the server.
import net from 'node:net';

export interface LoopbackServer {
  readonly endpoint: string;
  /** Request heads (request line and headers), in arrival order. */
  readonly requests: string[];
  /** Connections that closed before stop(): when the server never answers, the client closed them. */
  readonly closedByClient: number;
  stop(): Promise<void>;
}

/** An S3 error response, as a complete HTTP/1.1 message. */
export function s3ErrorResponse(status: number, reason: string, code: string): string {
  const body = `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${code}</Message></Error>`;
  return `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/xml\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

export async function startLoopbackServer(answer?: string): Promise<LoopbackServer> {
  const sockets = new Set<net.Socket>();
  const requests: string[] = [];
  let closedByClient = 0;
  let stopping = false;
  const server = net.createServer((socket) => {
    sockets.add(socket);
    let buffered = '';
    socket.on('data', (data: Buffer) => {
      buffered += data.toString('latin1');
      const end = buffered.indexOf('\r\n\r\n');
      if (end === -1) return;
      requests.push(buffered.slice(0, end));
      buffered = '';
      if (answer !== undefined) socket.end(answer);
    });
    socket.on('error', () => {}); // a client abort resets the connection
    socket.on('close', () => {
      sockets.delete(socket);
      if (!stopping) closedByClient += 1;
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as net.AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    get closedByClient() {
      return closedByClient;
    },
    async stop() {
      stopping = true;
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
