// The bounce mailbox poller (BOUNCE_IMAP_URL, imapflow), for relays that can only deliver bounces to a
// mailbox: every `intervalMs` it reads the unseen messages of the folder (at most BATCH a round, none over
// MAX_BYTES), hands each to `receive` with the addresses it was delivered to, and then deletes it, or moves
// it to the folder named by `?processed=<folder>`. A message `receive` failed on stays unseen-and-kept
// for the next round; one too big is flagged \Seen and left alone, with a logged reason.
//
// URL: imaps://user:password@host[:993]/INBOX, or imap://… (STARTTLS required unless
// `?starttls=false`); `?tls_reject_unauthorized=false` accepts a self-signed certificate, as SMTP_URL does.
import { ImapFlow } from 'imapflow';
import type { MailboxState } from './status.ts';
import type { InboundMessage } from './listener.ts';

const BATCH = 50;
const MAX_BYTES = 10 * 1024 * 1024;
/** headers that name the address a message was delivered to, most exact first */
const DELIVERED_TO = ['delivered-to', 'x-original-to', 'envelope-to', 'x-envelope-to', 'to'];

export interface MailboxOptions {
  url: string;
  intervalMs: number;
  /**
   * Takes the mailbox's lease before a round: how to give it back, or undefined when another instance
   * polls it now (the round is skipped). Without it every round runs.
   */
  claim?(): Promise<(() => Promise<void>) | undefined>;
  receive(m: InboundMessage): Promise<void>;
  log: {
    info(obj: object, msg: string): void;
    warn(obj: object, msg: string): void;
    error(obj: object, msg: string): void;
  };
}

export interface MailboxPoller {
  state: MailboxState;
  /** one round now (tests, and the first round at start) */
  poll(): Promise<number>;
  stop(): Promise<void>;
}

export interface MailboxSettings {
  host: string;
  port: number;
  secure: boolean;
  doSTARTTLS: boolean | undefined;
  rejectUnauthorized: boolean;
  user: string;
  pass: string;
  folder: string;
  processed: 'delete' | { moveTo: string };
}

export function mailboxSettings(url: string): MailboxSettings {
  const u = new URL(url);
  if (u.protocol !== 'imap:' && u.protocol !== 'imaps:') throw new Error('BOUNCE_IMAP_URL must be imap:// or imaps://');
  const secure = u.protocol === 'imaps:';
  const processed = u.searchParams.get('processed');
  return {
    host: u.hostname,
    port: Number(u.port || (secure ? 993 : 143)),
    secure,
    doSTARTTLS: secure ? undefined : u.searchParams.get('starttls') === 'false' ? false : true,
    rejectUnauthorized: u.searchParams.get('tls_reject_unauthorized') !== 'false',
    user: decodeURIComponent(u.username),
    pass: decodeURIComponent(u.password),
    folder: decodeURIComponent(u.pathname.replace(/^\/+/, '')) || 'INBOX',
    processed: !processed || processed === 'delete' ? 'delete' : { moveTo: processed },
  };
}

/** The addresses a message in a mailbox was delivered to, read from its delivery headers. */
export function deliveredTo(raw: Buffer): string[] {
  const head =
    raw
      .subarray(0, 65_536)
      .toString('latin1')
      .split(/\r?\n\r?\n/)[0] ?? '';
  const unfolded = head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/);
  for (const name of DELIVERED_TO) {
    const found = unfolded
      .filter((l) => l.toLowerCase().startsWith(name + ':'))
      .flatMap((l) => [...l.slice(name.length + 1).matchAll(/[^\s<>,;"]+@[^\s<>,;"]+/g)].map((m) => m[0]));
    if (found.length > 0) return [...new Set(found)].slice(0, 10);
  }
  return [];
}

export interface RoundOptions {
  receive(m: InboundMessage): Promise<void>;
  log: MailboxOptions['log'];
  /** the address to connect to when the caller resolved the host already (and checked it); TLS still names the host */
  address?: string;
}

/**
 * One round on one mailbox: log in, read the unseen messages of the folder (at most BATCH, none over
 * MAX_BYTES), hand each to `receive`, then delete or move those it took. Resolves with how many it took;
 * rejects when the mailbox could not be reached or read (wrong password, no such folder, refused TLS).
 */
export async function pollRound(s: MailboxSettings, o: RoundOptions): Promise<number> {
  const client = new ImapFlow({
    host: o.address ?? s.host,
    port: s.port,
    secure: s.secure,
    doSTARTTLS: s.doSTARTTLS,
    tls: { rejectUnauthorized: s.rejectUnauthorized, ...(o.address && { servername: s.host }) },
    auth: { user: s.user, pass: s.pass },
    logger: false,
    connectionTimeout: 30_000,
    socketTimeout: 60_000,
  });
  // a dropped connection is an 'error' event: it fails the round, never the process
  client.on('error', () => {});
  try {
    await client.connect();
    const lock = await client.getMailboxLock(s.folder);
    try {
      const unseen = (await client.search({ seen: false }, { uid: true })) || [];
      const handled: number[] = [];
      for (const uid of unseen.slice(0, BATCH)) {
        const meta = await client.fetchOne(String(uid), { size: true }, { uid: true });
        if (!meta || (meta.size ?? 0) > MAX_BYTES) {
          o.log.warn({ uid, size: meta ? meta.size : null }, 'bounce mailbox: message too big, left unprocessed');
          await client.messageFlagsAdd(String(uid), ['\\Seen'], { uid: true });
          continue;
        }
        const msg = await client.fetchOne(String(uid), { source: true }, { uid: true });
        const raw = msg && msg.source;
        if (!raw) continue;
        try {
          await o.receive({ mailFrom: returnPathOf(raw), rcptTo: deliveredTo(raw), raw });
          handled.push(uid);
        } catch (err) {
          o.log.error({ err, uid }, 'bounce mailbox: message could not be recorded, kept for the next round');
        }
      }
      if (handled.length > 0) {
        const range = handled.join(',');
        if (s.processed === 'delete') await client.messageDelete(range, { uid: true });
        else await client.messageMove(range, s.processed.moveTo, { uid: true });
      }
      return handled.length;
    } finally {
      lock.release();
    }
  } finally {
    await client.logout().catch(() => client.close());
  }
}

/** What went wrong in a round, fit for the Settings panel: never the URL or its password. */
export function roundError(err: unknown, s: Pick<MailboxSettings, 'pass'>): string {
  const e = err as { message?: string; authenticationFailed?: boolean; responseText?: string };
  const said = e?.authenticationFailed
    ? `authentication failed${e.responseText ? `: ${e.responseText}` : ''}`
    : String(e?.responseText || e?.message || err);
  return (s.pass ? said.split(s.pass).join('***') : said).slice(0, 300);
}

/** The instance mailbox (BOUNCE_IMAP_URL) polled every `intervalMs`, its state kept for the Settings panel. */
export function startMailboxPoller(o: MailboxOptions): MailboxPoller {
  const s = mailboxSettings(o.url);
  const state: MailboxState = {
    mailbox: `${s.host}/${s.folder}`,
    lastPollAt: null,
    lastError: null,
    processed: 0,
    lastReceivedAt: null,
  };
  let running: Promise<number> | undefined;
  let stopped = false;

  async function round(): Promise<number> {
    // of several instances polling one mailbox, one at a time (the lease); the others skip the round
    let release: (() => Promise<void>) | undefined = async () => {};
    let done = 0;
    try {
      if (o.claim) release = await o.claim();
      if (!release) return 0;
      done = await pollRound(s, o);
      state.processed += done;
      if (done > 0) state.lastReceivedAt = new Date();
      state.lastError = null;
    } catch (err) {
      state.lastError = roundError(err, s);
      o.log.error({ err: state.lastError, mailbox: state.mailbox }, 'bounce mailbox: poll failed');
    } finally {
      if (release) {
        state.lastPollAt = new Date();
        await release().catch((err: unknown) => o.log.warn({ err }, 'bounce mailbox: lease not given back'));
      }
    }
    return done;
  }

  const poll = () => (running ??= round().finally(() => (running = undefined)));
  const timer = setInterval(() => {
    if (!stopped) void poll().catch(() => 0);
  }, o.intervalMs);
  timer.unref();
  void poll().catch(() => 0);
  return {
    state,
    poll,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running?.catch(() => 0);
    },
  };
}

/** The Return-Path the delivering server wrote: '' for the null sender that reports use. */
function returnPathOf(raw: Buffer): string {
  const head = raw.subarray(0, 8192).toString('latin1');
  const m = /^return-path:\s*<([^>]*)>/im.exec(head);
  return m ? m[1]! : '';
}
