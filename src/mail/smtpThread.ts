// The SMTP thread's body: one SmtpSender (its pool of connections) serving the messages the process's
// transport posts, each answered with its SendResult under the id it came with. Started by
// smtpThread.mjs; see smtpThreadClient.ts for why it is a thread.
import { parentPort, workerData } from 'node:worker_threads';
import { smtpSender, type AddressedMessage, type SmtpSettings } from './smtpSender.ts';
import type { SendResult } from './outgoing.ts';

export type ThreadRequest = { id: number; msg: AddressedMessage } | { close: true };
export interface ThreadReply {
  id: number;
  result: SendResult;
}

const port = parentPort!;
const sender = smtpSender(workerData as SmtpSettings);

port.on('message', (req: ThreadRequest) => {
  if ('close' in req) {
    sender.close();
    port.close(); // the thread ends once its connections' QUITs are written
    return;
  }
  void sender.send(req.msg).then(
    (result) => port.postMessage({ id: req.id, result } satisfies ThreadReply),
    (err: unknown) =>
      port.postMessage({
        id: req.id,
        result: { ok: false, permanent: false, error: String((err as Error)?.message ?? err) },
      } satisfies ThreadReply),
  );
});
