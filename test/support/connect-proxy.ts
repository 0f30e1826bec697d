/**
 * A small HTTP CONNECT proxy for tests: it tunnels every target to one local port
 * (whatever host name was asked for, so a base URL that resolves nowhere still arrives) and
 * records each CONNECT it was sent, with its headers (`proxy-authorization` included).
 */
import { connect, createServer, type Server } from 'node:net';

interface ConnectRecord {
  target: string;
  headers: Record<string, string>;
}

export interface ConnectProxy {
  url: string;
  connects: ConnectRecord[];
  close(): void;
}

export async function startConnectProxy(toPort: number | (() => number)): Promise<ConnectProxy> {
  const connects: ConnectRecord[] = [];
  const server: Server = createServer((client) => {
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      client.off('data', onData);
      const [requestLine = '', ...lines] = head.subarray(0, end).toString('latin1').split('\r\n');
      const [method, target = ''] = requestLine.split(' ');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const i = line.indexOf(':');
        headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
      }
      connects.push({ target, headers });
      if (method !== 'CONNECT') {
        client.end('HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n');
        return;
      }
      const port = typeof toPort === 'function' ? toPort() : toPort;
      const upstream = connect(port, '127.0.0.1', () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        const rest = head.subarray(end + 4);
        if (rest.length > 0) upstream.write(rest);
        client.pipe(upstream).pipe(client);
      });
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    };
    client.on('data', onData);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, connects, close: () => server.close() };
}
