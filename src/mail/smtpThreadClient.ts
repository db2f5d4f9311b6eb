// The process's side of the SMTP thread. Messages go to SMTP from a thread of their own so that a send's
// SMTP round trips do not queue behind the API's requests on the main event loop: under 50 API clients a
// message waited 72–86 ms for its reply (14 ms idle), nearly all of it turns of the loop; docs/performance.md
// ("SMTP in a thread of its own") has the figures. Composition (quoted-printable, DKIM) moves with it.
// Hand-made rather than a worker-pool library: one long-lived thread holding the connections, an id per
// message and a map of pending replies is all it needs.
import { Worker } from 'node:worker_threads';
import type { SmtpPoolOptions } from './smtpPool.ts';
import type { AddressedMessage, SmtpSettings } from './smtpSender.ts';
import type { ThreadReply, ThreadRequest } from './smtpThread.ts';
import type { SendResult } from './outgoing.ts';

const YOUNG_GENERATION_MB = 4;

export class SmtpThreadClient {
  private worker?: Worker;
  /** replies awaited, per thread: a thread that dies fails only its own */
  private pending = new Map<number, (r: SendResult) => void>();
  private nextId = 0;
  private closed = false;
  /** DKIM keys this thread holds already, by PEM: a key crosses to the thread once, not with each message */
  private keyRefs = new Map<string, number>();
  /** account relays whose pool this thread holds, with the settings it holds them under */
  private relays = new Map<string, string>();
  /** told when the thread stops unasked (its pending messages have failed as transient) */
  onError?: (err: Error) => void;

  constructor(private readonly settings: SmtpSettings) {}

  /** Starts the thread now rather than with the first message (a process that sends campaigns). */
  warm(): void {
    if (!this.worker && !this.closed) this.start();
  }

  /** Sends over the instance's pool, or over an account relay's (opened in the thread on its first message). */
  send(msg: AddressedMessage, relay?: { id: string; options: SmtpPoolOptions }): Promise<SendResult> {
    if (this.closed)
      return Promise.resolve({ ok: false, permanent: false, error: 'The SMTP connection pool is closed' });
    const worker = this.worker ?? this.start();
    const id = this.nextId++;
    if (relay) {
      const held = JSON.stringify(relay.options);
      if (this.relays.get(relay.id) !== held) {
        this.relays.set(relay.id, held);
        worker.postMessage({ relay } satisfies ThreadRequest);
      }
    }
    let keyRef: number | undefined;
    if (msg.dkim) {
      keyRef = this.keyRefs.get(msg.dkim.privateKey);
      if (keyRef === undefined) {
        // refs start over past 1,000 keys: a ref is rebound (in order, before its next message) when reused
        if (this.keyRefs.size >= 1000) this.keyRefs = new Map();
        keyRef = this.keyRefs.size;
        this.keyRefs.set(msg.dkim.privateKey, keyRef);
        worker.postMessage({ key: { ref: keyRef, pem: msg.dkim.privateKey } } satisfies ThreadRequest);
      }
      msg = { ...msg, dkim: { ...msg.dkim, privateKey: '' } };
    }
    return new Promise<SendResult>((resolve) => {
      this.pending.set(id, resolve);
      worker.postMessage({ id, msg, keyRef, relay: relay?.id } satisfies ThreadRequest);
    });
  }

  /** Closes a relay's pool (the relay was deleted or changed); its next message opens a new one. */
  dropRelay(relayId: string): void {
    if (!this.relays.delete(relayId)) return;
    this.worker?.postMessage({ dropRelay: relayId } satisfies ThreadRequest);
  }

  /** Asks the thread to say QUIT and end; later sends fail (transient). */
  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage({ close: true } satisfies ThreadRequest);
    await Promise.race([exited, new Promise((r) => setTimeout(r, 2000).unref())]);
    await worker.terminate();
  }

  private start(): Worker {
    const worker = new Worker(new URL('./smtpThread.mjs', import.meta.url), {
      workerData: this.settings,
      // what lives in this thread is one message per slot and its garbage: with V8's default young
      // generation the thread's RSS stood ~15 MB higher under a send (4 MB: 165–172 MB against 184 MB
      // for 40,000 messages through 60 slots), with no difference in msg/s
      resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
    });
    const pending = (this.pending = new Map());
    this.keyRefs = new Map(); // a new thread holds no keys yet
    this.relays = new Map(); // nor relay pools
    this.worker = worker;
    worker.unref(); // what keeps the process up is its server and its workers, not an idle SMTP thread
    worker.on('message', ({ id, result }: ThreadReply) => {
      const done = pending.get(id);
      pending.delete(id);
      done?.(result);
    });
    const fail = (why: string) => {
      if (this.worker !== worker) return; // told already (an error is followed by its exit)
      this.worker = undefined; // the next send starts a new thread
      if (!this.closed) this.onError?.(new Error(`The SMTP thread stopped: ${why}`));
      // sent or not, nobody can tell: transient, so the message is retried (or counted interrupted)
      for (const done of pending.values())
        done({ ok: false, permanent: false, error: `The SMTP thread stopped: ${why}` });
      pending.clear();
    };
    worker.on('error', (err) => fail(err.message));
    worker.on('exit', (code) => fail(`exit code ${code}`));
    return worker;
  }
}
