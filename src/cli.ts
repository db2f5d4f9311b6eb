// mailgrove CLI: serve, migrate, accounts create, keys create|list|revoke, users set-password|reset-two-factor, import.
// Management commands open the database directly, or talk to a running server through the admin API
// when MAILGROVE_URL is set or the PGlite data directory is held by a running server.
import { parseArgs } from 'node:util';
import { adminClient, type Admin } from './cli/admin.ts';
import { importCommand } from './cli/import.ts';
import { loadConfig, type Config } from './config.ts';

const USAGE = `Usage: mailgrove <command>

  serve [--role all|api|worker]           start the server (PORT, HOST, DATABASE_URL, MAILGROVE_DATA_DIR, …);
                                          api: HTTP only, worker: background jobs only (MAILGROVE_ROLE)
  migrate                                 apply pending database migrations
  accounts create --name N [--limit N] [--owner-email E]
  accounts list
  keys create --account ID --name N [--scopes a,b] [--expires ISO]
  keys list --account ID
  keys revoke KEY_ID
  users set-password --email E            reads the new password from standard input (first dashboard sign-in)
  users reset-two-factor --email E        turns two-factor sign-in off for someone who lost the phone and the codes
  import FILE.csv --key API_KEY [--group ID]… [--url URL]
`;

async function main(argv: string[]): Promise<number> {
  const [command, sub, ...rest] = argv;
  const config = loadConfig();
  switch (command) {
    case 'serve': {
      const { values } = parseArgs({
        args: [sub, ...rest].filter((a) => a !== undefined),
        options: { role: { type: 'string' } },
      });
      if (values.role !== undefined) {
        if (!['all', 'api', 'worker'].includes(values.role)) {
          console.error(`--role must be all, api or worker (got "${values.role}")`);
          return 2;
        }
        config.MAILGROVE_ROLE = values.role as Config['MAILGROVE_ROLE'];
      }
      return serve(config);
    }
    case 'migrate': {
      // the database is loaded only by the commands that open it: help and remote commands start in half the time
      const [{ openDb }, { migrate }] = await Promise.all([import('./db/client.ts'), import('./db/migrate.ts')]);
      const handle = await openDb({ url: config.DATABASE_URL, dataDir: config.MAILGROVE_DATA_DIR });
      const applied = await migrate(handle.db);
      await handle.close();
      console.log(applied.length ? `Applied: ${applied.join(', ')}` : 'Database is up to date');
      return 0;
    }
    case 'accounts':
    case 'keys':
    case 'users':
      return withAdmin(config, (admin) => manage(admin, command, sub, rest, config.MAILGROVE_URL ?? config.publicUrl));
    case 'import':
      return importCommand(
        config,
        [sub, ...rest].filter((a): a is string => a !== undefined),
      );
    default:
      process.stdout.write(USAGE);
      return command === undefined || command === 'help' || command === '--help' ? 0 : 2;
  }
}

async function serve(config: Config): Promise<number> {
  // loaded only here: the management commands need the domain, not the HTTP app and workers
  const { start } = await import('./main.ts');
  const running = await start(config);
  const shutdown = async (signal: string) => {
    running.app.log.info(`${signal}: shutting down`);
    const force = setTimeout(() => process.exit(1), config.SHUTDOWN_TIMEOUT_MS);
    force.unref();
    await running.stop();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  return new Promise<number>(() => {}); // runs until a signal
}

async function withAdmin(config: Config, fn: (admin: Admin) => Promise<number>): Promise<number> {
  if (config.MAILGROVE_URL) return fn(adminClient(config.MAILGROVE_URL, config.MAILGROVE_ADMIN_TOKEN));
  let admin: Admin & { close(): Promise<void> };
  try {
    const { directClient } = await import('./cli/direct.ts');
    admin = await directClient(config);
  } catch (err) {
    if (!/in use by another Mailgrove process/.test((err as Error).message)) throw err;
    // the server holds the PGlite data dir: go through its admin API instead
    return fn(adminClient(config.publicUrl, config.MAILGROVE_ADMIN_TOKEN));
  }
  try {
    return await fn(admin);
  } finally {
    await admin.close();
  }
}

async function manage(
  admin: Admin,
  command: string,
  sub: string | undefined,
  args: string[],
  serverUrl: string,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      limit: { type: 'string' },
      'owner-email': { type: 'string' },
      account: { type: 'string' },
      scopes: { type: 'string', default: '*' },
      expires: { type: 'string' },
      json: { type: 'boolean', default: false },
      email: { type: 'string' },
    },
  });
  const print = (v: unknown) => console.log(JSON.stringify(v, null, 2));
  if (command === 'accounts' && sub === 'create') {
    if (!values.name) throw new Error('accounts create needs --name');
    print(
      await admin.createAccount({
        name: values.name,
        subscriber_limit: values.limit ? Number(values.limit) : undefined,
        owner_email: values['owner-email'],
      }),
    );
    process.stderr.write(firstSignIn(values['owner-email'], serverUrl));
    return 0;
  }
  if (command === 'accounts' && sub === 'list') {
    print(await admin.listAccounts());
    return 0;
  }
  if (command === 'keys' && sub === 'create') {
    if (!values.account || !values.name) throw new Error('keys create needs --account and --name');
    const key = await admin.createKey(values.account, {
      name: values.name,
      scopes: values.scopes!.split(',').map((s) => s.trim()),
      expires_at: values.expires,
    });
    if (values.json) print(key);
    else
      console.log(
        `${key.key}\n\nid ${key.id}, scopes ${key.scopes.join(' ')}. Store the key now: it cannot be shown again.`,
      );
    return 0;
  }
  if (command === 'keys' && sub === 'list') {
    if (!values.account) throw new Error('keys list needs --account');
    print(await admin.listKeys(values.account));
    return 0;
  }
  if (command === 'keys' && sub === 'revoke') {
    if (!positionals[0]) throw new Error('keys revoke needs the key id');
    await admin.revokeKey(positionals[0]);
    console.log('Revoked');
    return 0;
  }
  if (command === 'users' && sub === 'reset-two-factor') {
    if (!values.email) throw new Error('users reset-two-factor needs --email');
    print(await admin.resetTwoFactor({ email: values.email }));
    console.error('Two-factor sign-in is off: the password alone signs in; the person can set it up again.');
    return 0;
  }
  if (command === 'users' && sub === 'set-password') {
    if (!values.email) throw new Error('users set-password needs --email (the password is read from standard input)');
    const user = await admin.setPassword({ email: values.email, password: await readSecretLine() });
    print(user);
    return 0;
  }
  process.stdout.write(USAGE);
  return 2;
}

/**
 * What the operator does next for the owner to reach the dashboard (on stderr: stdout stays the JSON). An
 * owner made here has no password, and the sign-in form cannot tell them so without telling anyone which
 * addresses have accounts.
 */
function firstSignIn(ownerEmail: string | undefined, serverUrl: string): string {
  if (!ownerEmail)
    return (
      '\nThis account has no one who can sign in to the dashboard yet (its owner is a service identity).\n' +
      'Create it with --owner-email to name a person who can.\n'
    );
  return (
    `\nTo sign in to the dashboard (${serverUrl}/), ${ownerEmail} needs a password. Set it with:\n` +
    `  mailgrove users set-password --email ${ownerEmail}\n` +
    '(it reads the password from standard input: never from the command line)\n'
  );
}

/** The first line of standard input: a password never goes on the command line (shell history, ps). */
async function readSecretLine(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('New password: ');
  let text = '';
  for await (const chunk of process.stdin) {
    text += chunk;
    if (text.includes('\n')) break;
  }
  return text.split(/\r?\n/)[0] ?? '';
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (err) => {
    console.error(`mailgrove: ${(err as Error).message}`);
    process.exit(1);
  },
);
