// What a mail server's answer means for one recipient: the classes of replies that the delivery outcome
// rule (domain/delivery/outcome.ts) applies at send time, the bounce hooks to providers' reports and the
// metrics to the stored replies. A reply is its basic code (RFC 5321) and, when the
// server gives one, its enhanced status code (RFC 3463: class.subject.detail), which says more than the
// basic code (a 550 may be a missing mailbox, 5.1.1, or a policy block, 5.7.1).

export interface SmtpReply {
  /** the basic reply code (250, 421, 550 …); null when there was no reply (connection lost, timeout) */
  code: number | null;
  /** the enhanced status code ("5.1.1"), or null when the server gave none */
  status: string | null;
  /** the server's text, as it said it (one line per reply line), at most 1,000 characters */
  reply: string;
}

/**
 * - `hard`: the mailbox does not exist or cannot take mail, for good (5.1.x, 5.2.1, 5.5.x): bounce it.
 * - `deferred`: try again later (any 4.x.x, 421, no reply at all).
 * - `throttled`: deferred because of the sender's rate or reputation (421, 4.7.x): the provider wants
 *   fewer messages, so its whole queue slows down, not just this recipient.
 * - `blocked`: a policy or reputation refusal (5.7.x): the address is fine, the message or sender is not.
 * - `failed`: any other permanent refusal, kept with its reply.
 */
export type ReplyClass = 'hard' | 'deferred' | 'throttled' | 'blocked' | 'failed';

const ENHANCED = /(?:^|[\s(-])([245])\.(\d{1,3})\.(\d{1,3})(?=$|[\s).,;:])/;

/** Reads the reply code and the enhanced status code from what the server said. */
export function parseReply(code: number | null | undefined, text: string): SmtpReply {
  const reply = text.replace(/\s+$/, '').slice(0, 1000);
  let basic = code ?? null;
  const lead = /^([2-5]\d\d)[ -]/.exec(reply);
  if (basic === null && lead) basic = Number(lead[1]);
  // the enhanced code follows the basic one ("550 5.1.1 <a@b>: no such user"); a status of another
  // class than the basic code's is not one (RFC 3463 §2: the class digits must agree)
  const afterCode = lead ? reply.slice(4) : reply;
  const m = ENHANCED.exec(afterCode);
  const status = m && (basic === null || String(basic)[0] === m[1]) ? `${m[1]}.${m[2]}.${m[3]}` : null;
  return { code: basic, status, reply };
}

export function classify(r: Pick<SmtpReply, 'code' | 'status'>): ReplyClass {
  const { code, status } = r;
  const klass = status?.[0] ?? (code === null ? '4' : String(code)[0]);
  if (klass === '4' || klass === '2' || klass === '3') {
    if (code === 421 || status?.startsWith('4.7.')) return 'throttled';
    return 'deferred';
  }
  if (status) {
    const [, subject, detail] = status.split('.');
    if (subject === '1' || subject === '5' || (subject === '2' && detail === '1')) return 'hard';
    if (subject === '7') return 'blocked';
    return 'failed';
  }
  // a bare 5xx without an enhanced code: 550/551/553 are about the mailbox itself (RFC 5321 §4.2.3)
  if (code === 550 || code === 551 || code === 553) return 'hard';
  return 'failed';
}
