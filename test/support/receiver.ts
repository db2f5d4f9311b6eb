// A webhook receiver on loopback that records every request. A path answers the statuses scripted for it
// in turn, then 200; paths under /fail answer 500 and paths under /hang never answer (the sender's
// timeout decides).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileScope, type Scope } from './scope.ts';

export interface Received {
  path: string;
  /** webhook headers are single-valued */
  headers: Record<string, string>;
  body: string;
}

export interface Receiver {
  /** http://127.0.0.1:<port>: a webhook URL is this and a path */
  base: string;
  received: Received[];
  /** statuses to answer at a path, in turn, before its default */
  scripted: Map<string, number[]>;
}

export async function startReceiver(scope: Scope = fileScope): Promise<Receiver> {
  const received: Received[] = [];
  const scripted = new Map<string, number[]>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const path = req.url!;
      received.push({
        path,
        headers: req.headers as Record<string, string>,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      if (path.startsWith('/hang')) return;
      const status = scripted.get(path)?.shift() ?? (path.startsWith('/fail') ? 500 : 200);
      res.writeHead(status, { 'content-type': 'text/plain' }).end(`answer ${status} for ${path}`);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  scope.after(() => {
    server.closeAllConnections(); // a /hang request would hold close() open
    server.close();
  });
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received, scripted };
}
