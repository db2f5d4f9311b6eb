// A real IMAP server for the bounce mailbox tests: Debian's Dovecot (`dovecot-imapd`), started as a child
// process in the foreground with a configuration of its own in a temporary directory — listening on
// 127.0.0.1 at a free port, plaintext login allowed, users from a passwd file, maildirs in the temporary
// directory, no system service touched — and stopped (the directory removed) after the test.
// `dovecotInstalled` is false where the binary is missing; the tests that need it skip, saying why.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { ImapFlow } from 'imapflow';

const DOVECOT = '/usr/sbin/dovecot';

export const dovecotInstalled = spawnSync(DOVECOT, ['--version']).status === 0;
export const dovecotSkip = !dovecotInstalled && 'dovecot is not installed (apt-get install dovecot-imapd)';

export interface ImapServer {
  port: number;
  /** imap://user:password@127.0.0.1:port/INBOX?starttls=false */
  url(user: string, folder?: string): string;
  /** appends a message to a user's folder over IMAP, as a mail server delivering into the mailbox would */
  append(user: string, raw: string | Buffer, folder?: string): Promise<void>;
  /** the messages in a user's folder, with their flags */
  list(user: string, folder?: string): Promise<{ uid: number; flags: string[]; source: string }[]>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** Who Dovecot's own processes and the mail users run as: as root, the package's users; else ourselves. */
function identities() {
  const me = userInfo();
  if (me.uid !== 0) return { internal: me.username, login: me.username, uid: me.uid, gid: me.gid };
  const idOf = (flag: string, name: string) => Number(spawnSync('id', [flag, name], { encoding: 'utf8' }).stdout);
  return { internal: 'dovecot', login: 'dovenull', uid: idOf('-u', 'dovecot'), gid: idOf('-g', 'dovecot') };
}

/** Starts Dovecot with these users (name → password). */
export async function startImapServer(users: Record<string, string>): Promise<ImapServer> {
  const dir = mkdtempSync(join(tmpdir(), 'mailgrove-imap-'));
  chmodSync(dir, 0o755);
  const port = await freePort();
  const who = identities();
  const mail = join(dir, 'mail');
  mkdirSync(join(dir, 'run'));
  mkdirSync(mail);
  chownSync(mail, who.uid, who.gid);
  writeFileSync(
    join(dir, 'passwd'),
    Object.entries(users)
      .map(([u, p]) => `${u}:{PLAIN}${p}:${who.uid}:${who.gid}::${join(mail, u)}::\n`)
      .join(''),
  );
  writeFileSync(
    join(dir, 'dovecot.conf'),
    `base_dir = ${dir}/run
state_dir = ${dir}/run/state
instance_name = mailgrove-test-${port}
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
log_path = ${dir}/dovecot.log
default_internal_user = ${who.internal}
default_internal_group = ${who.internal}
default_login_user = ${who.login}
first_valid_uid = ${who.uid}
last_valid_uid = 0
mail_location = maildir:${mail}/%u
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${dir}/passwd
}
userdb {
  driver = passwd-file
  args = username_format=%u ${dir}/passwd
}
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
  chroot =
}
service anvil {
  chroot =
}
service stats {
  unix_listener stats-reader {
    mode = 0666
  }
  unix_listener stats-writer {
    mode = 0666
  }
}
`,
  );
  const child: ChildProcess = spawn(DOVECOT, ['-F', '-c', join(dir, 'dovecot.conf')], { stdio: 'ignore' });
  let exited = false;
  const gone = new Promise<void>((r) => child.once('exit', () => ((exited = true), r())));
  // ready once it greets a connection
  const end = Date.now() + 10_000;
  for (;;) {
    if (exited) throw new Error(`dovecot exited at start; see ${dir}/dovecot.log`);
    const greeted = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1');
      s.once('data', (d) => (s.destroy(), resolve(d.toString().startsWith('* OK'))));
      s.once('error', () => resolve(false));
    });
    if (greeted) break;
    if (Date.now() > end) throw new Error('dovecot did not start within 10 s');
    await new Promise((r) => setTimeout(r, 50));
  }

  const withClient = async <T>(user: string, fn: (c: ImapFlow) => Promise<T>): Promise<T> => {
    const c = new ImapFlow({
      host: '127.0.0.1',
      port,
      secure: false,
      doSTARTTLS: false,
      auth: { user, pass: users[user]! },
      logger: false,
    });
    c.on('error', () => {});
    await c.connect();
    try {
      return await fn(c);
    } finally {
      await c.logout().catch(() => c.close());
    }
  };

  return {
    port,
    url: (user, folder = 'INBOX') =>
      `imap://${encodeURIComponent(user)}:${encodeURIComponent(users[user]!)}@127.0.0.1:${port}/${folder}?starttls=false`,
    append: (user, raw, folder = 'INBOX') =>
      withClient(user, async (c) => {
        await c.mailboxCreate(folder).catch(() => undefined);
        await c.append(folder, raw);
      }),
    list: (user, folder = 'INBOX') =>
      withClient(user, async (c) => {
        const lock = await c.getMailboxLock(folder);
        try {
          const out: { uid: number; flags: string[]; source: string }[] = [];
          for await (const m of c.fetch('1:*', { uid: true, flags: true, source: true }))
            out.push({ uid: m.uid, flags: [...(m.flags ?? [])], source: m.source?.toString() ?? '' });
          return out;
        } catch {
          return []; // an empty folder: 1:* names no message
        } finally {
          lock.release();
        }
      }),
    async stop() {
      if (!exited) child.kill('SIGTERM');
      await Promise.race([gone, new Promise((r) => setTimeout(r, 5000))]);
      if (!exited) child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
