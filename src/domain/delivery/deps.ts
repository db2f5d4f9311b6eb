// What the delivery side is given by the process that runs it (the workers' context fits it as it is).
import type { Config } from '../../config.ts';
import type { Db, DbHandle } from '../../db/client.ts';
import type { MailTransport } from '../../mail/transport.ts';

/** What the delivery side logs through (the process's pino logger). */
export interface DeliveryLog {
  info(msg: string): void;
  warn(msg: string): void;
  error(obj: { err: unknown }, msg: string): void;
}

export interface PacingDeps {
  db: Db;
  config: Config;
  log: DeliveryLog;
}

/** What the campaign lanes need besides pacing: the handle (which store), the process's one transport. */
export interface SenderDeps extends PacingDeps {
  handle: DbHandle;
  transport: MailTransport;
}
