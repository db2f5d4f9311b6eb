// The SMTP thread's body: one SmtpSender (its pool of connections) for the instance's SMTP_URL and one per
// account relay in use, serving the messages the process's transport posts, each answered with its
// SendResult under the id it came with. Started by smtpThread.mjs; see smtpThreadClient.ts for why it is a
// thread.
import { parentPort, workerData } from 'node:worker_threads';
import { loadKey } from './dkim.ts';
import { smtpSender, type AddressedMessage, type SmtpSender, type SmtpSettings } from './smtpSender.ts';
import type { SmtpPoolOptions } from './smtpPool.ts';
import type { SendResult } from './outgoing.ts';

/**
 * A message (its DKIM key, if any, named by `keyRef`: the key itself crossed once, in a `key` request;
 * `relay`: the account relay whose pool carries it, set up by a `relay` request before), a key to keep,
 * a relay's pool to open (or replace) or close, or the end.
 */
export type ThreadRequest =
  | { id: number; msg: AddressedMessage; keyRef?: number; relay?: string }
  | { key: { ref: number; pem: string } }
  | { relay: { id: string; options: SmtpPoolOptions } }
  | { dropRelay: string }
  | { close: true };
export interface ThreadReply {
  id: number;
  result: SendResult;
}

const port = parentPort!;
const settings = workerData as SmtpSettings;
if (settings.dkim) loadKey(settings.dkim.privateKey); // a broken DKIM_PRIVATE_KEY fails the thread's start
const instance = settings.instance ? smtpSender(settings.instance, settings.dkim) : undefined;
const relays = new Map<string, SmtpSender>();
const keys = new Map<number, string>();

function senderOf(relay: string | undefined): SmtpSender | undefined {
  return relay === undefined ? instance : relays.get(relay);
}

port.on('message', (req: ThreadRequest) => {
  if ('close' in req) {
    instance?.close();
    for (const sender of relays.values()) sender.close();
    port.close(); // the thread ends once its connections' QUITs are written
    return;
  }
  if ('key' in req) {
    keys.set(req.key.ref, req.key.pem);
    return;
  }
  if ('dropRelay' in req) {
    relays.get(req.dropRelay)?.close();
    relays.delete(req.dropRelay);
    return;
  }
  if (!('id' in req)) {
    relays.get(req.relay.id)?.close(); // its settings changed: the old connections go
    relays.set(req.relay.id, smtpSender(req.relay.options, settings.dkim));
    return;
  }
  const msg =
    req.keyRef !== undefined && req.msg.dkim
      ? { ...req.msg, dkim: { ...req.msg.dkim, privateKey: keys.get(req.keyRef)! } }
      : req.msg;
  const sender = senderOf(req.relay);
  const sent: Promise<SendResult> = sender
    ? sender.send(msg)
    : Promise.resolve({ ok: false, permanent: false, error: 'No SMTP server to send this message through' });
  void sent.then(
    (result) => port.postMessage({ id: req.id, result } satisfies ThreadReply),
    (err: unknown) =>
      port.postMessage({
        id: req.id,
        result: { ok: false, permanent: false, error: String((err as Error)?.message ?? err) },
      } satisfies ThreadReply),
  );
});
