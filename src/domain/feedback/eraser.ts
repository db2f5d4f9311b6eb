// Erases one address from the mail that came home (forget_subscriber). Owned by the feedback area.
// Mail that could not be attributed is kept whole for the operator (sender, recipient, subject, its first
// 256 KB): every such message that names the address anywhere in them goes. Attributed mail keeps only
// its outcome and reason, and a reason may quote the remote server's words with the address in them:
// the account's records whose reason names it go too. The address is looked for as written, in any
// case; an address only written in an encoded part (base64, quoted-printable) is not found. Runs in
// forget's transaction.
import { sql } from 'kysely';
import type { Db } from '../../db/client.ts';
import type { ForgetTarget } from '../eraser.ts';

export async function erase(trx: Db, accountId: string, target: ForgetTarget): Promise<void> {
  const email = target.email.trim().toLowerCase();
  await sql`
    delete from inbound_mail
     where account_id is null
       and (position(${email} in lower(coalesce(mail_from, ''))) > 0
            or position(${email} in lower(coalesce(rcpt_to, ''))) > 0
            or position(${email} in lower(coalesce(subject, ''))) > 0
            or position(${email} in lower(coalesce(reason, ''))) > 0
            or position(lower(encode(convert_to(${email}, 'UTF8'), 'escape'))
                        in lower(encode(coalesce(raw, ''::bytea), 'escape'))) > 0)`.execute(trx);
  await sql`
    delete from inbound_mail
     where account_id = ${accountId} and position(${email} in lower(coalesce(reason, ''))) > 0`.execute(trx);
}
