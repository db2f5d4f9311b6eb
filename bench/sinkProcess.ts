// An smtp-server sink in a process of its own, controlled over IPC. The send and load benches use it: in
// the bench's own process it would take turns on the event loop that drives the baselines or the clients,
// and a send would measure the bench as much as the server. Run as a child: this file with
// MAILGROVE_BENCH_SINK=1.
import { spawn, type ChildProcess } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { SMTPServer } from 'smtp-server';

export interface Sink {
  port: number;
  url: string;
  pid: number;
  child: ChildProcess;
  /** messages' recipients in all, and distinct recipient addresses */
  count(): Promise<{ total: number; distinct: number }>;
  reset(): Promise<void>;
}

export async function startSinkProcess(): Promise<Sink> {
  const child = spawn(process.execPath, ['--import', 'tsx', new URL(import.meta.url).pathname], {
    env: { ...process.env, MAILGROVE_BENCH_SINK: '1' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ask = <T>(msg: string) =>
    new Promise<T>((resolve) => {
      child.once('message', (m) => resolve(m as T));
      child.send(msg);
    });
  const { port } = await new Promise<{ port: number }>((resolve) =>
    child.once('message', (m) => resolve(m as { port: number })),
  );
  return {
    port,
    url: `smtp://127.0.0.1:${port}?starttls=false`,
    pid: child.pid!,
    child,
    count: () => ask('count'),
    reset: () => ask('reset'),
  };
}

function sinkMain(): void {
  let total = 0;
  let rcpts = new Set<string>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    maxClients: 1000,
    onData(stream, session, cb) {
      stream.on('data', () => {});
      stream.on('end', () => {
        for (const r of session.envelope.rcptTo) rcpts.add(r.address);
        total += session.envelope.rcptTo.length;
        cb();
      });
    },
  });
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.server.address() as { port: number }).port }));
  process.on('message', (m) => {
    if (m === 'count') process.send!({ total, distinct: rcpts.size });
    if (m === 'reset') {
      total = 0;
      rcpts = new Set();
      process.send!({});
    }
  });
  process.on('disconnect', () => process.exit(0));
}

if (process.env.MAILGROVE_BENCH_SINK === '1' && import.meta.url === pathToFileURL(process.argv[1] ?? '').href)
  sinkMain();
