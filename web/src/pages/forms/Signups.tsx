// The double opt-in sign-ups of every form: pending ones (their link not opened yet) with "Resend" and
// "Confirm by hand…" (which asks for the reason that is kept as the record of consent), and the expired
// and confirmed ones a tab away. In the default setup the outbox holds the confirmation mails instead of
// sending them, so confirming by hand is how a sign-up is finished there.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { overviewKeys } from '../../api/overview.ts';
import { confirmSignup, listSignups, resendSignup, signupKeys, type Signup } from '../../api/signups.ts';
import { actionsColumn, DataTable, pagingOf, type ColumnDef } from '../../lib/table.tsx';
import { Alert, Field, formatDate } from '../../ui.tsx';
import { ApiError } from '../../api/client.ts';

const STATES = [
  ['pending', 'Pending'],
  ['expired', 'Expired'],
  ['confirmed', 'Confirmed'],
] as const;

export function Signups({ canEdit }: { canEdit: boolean }) {
  const client = useQueryClient();
  const [status, setStatus] = useState<(typeof STATES)[number][0]>('pending');
  const [page, setPage] = useState(1);
  const [error, setError] = useState<unknown>();
  const [notice, setNotice] = useState<string>();
  const [confirming, setConfirming] = useState<Signup>();
  const list = useQuery({
    queryKey: signupKeys.page(status, page),
    queryFn: () => listSignups({ status, page }),
  });
  const done = async (message: string) => {
    setNotice(message);
    setConfirming(undefined);
    await client.invalidateQueries({ queryKey: signupKeys.all });
    await client.invalidateQueries({ queryKey: overviewKeys.all });
  };
  const resend = async (s: Signup) => {
    setError(undefined);
    try {
      await resendSignup(s.id);
      await done(`Confirmation sent again to ${s.email}.`);
    } catch (err) {
      setError(err);
    }
  };
  const columns: ColumnDef<Signup>[] = [
    { header: 'Email', accessorKey: 'email', meta: { className: 'break' } },
    // a sign-up through the API without a form has none
    { header: 'Form', accessorFn: (x) => x.form_name ?? 'API' },
    { header: 'Signed up', accessorKey: 'created_at', cell: (c) => formatDate(c.getValue() as string) },
    status === 'confirmed'
      ? {
          header: 'Confirmed',
          accessorKey: 'confirmed_at',
          cell: ({ row: { original: s } }) => (
            <>
              {formatDate(s.confirmed_at!)}
              {s.confirmed_by && (
                <div className="muted small-text">
                  by hand, {s.confirmed_by}: {s.confirm_reason}
                </div>
              )}
            </>
          ),
        }
      : {
          header: status === 'expired' ? 'Expired' : 'Link expires',
          accessorKey: 'expires_at',
          cell: (c) => formatDate(c.getValue() as string),
        },
  ];
  if (canEdit && status !== 'confirmed')
    columns.push(
      actionsColumn((s) => (
        <span className="buttons">
          <button
            type="button"
            className="secondary small"
            onClick={() => resend(s)}
            aria-label={`Resend to ${s.email}`}
          >
            Resend
          </button>
          <button
            type="button"
            className="secondary small"
            onClick={() => (setConfirming(s), setNotice(undefined))}
            aria-label={`Confirm ${s.email} by hand`}
          >
            Confirm…
          </button>
        </span>
      )),
    );
  return (
    <section aria-labelledby="signups-title">
      <h2 id="signups-title">Double opt-in sign-ups</h2>
      <p className="muted">
        People who signed up through a double opt-in form and have not opened their confirmation link yet.
      </p>
      <div className="tabs" role="tablist" aria-label="Sign-ups">
        {STATES.map(([value, label]) => (
          <button
            key={value}
            type="button"
            role="tab"
            aria-selected={status === value}
            className={status === value ? 'tab active' : 'tab'}
            onClick={() => (setStatus(value), setPage(1), setConfirming(undefined))}
          >
            {label}
          </button>
        ))}
      </div>
      <Alert error={error} />
      {notice && <Alert kind="success">{notice}</Alert>}
      {confirming && <ConfirmByHand signup={confirming} onDone={done} onCancel={() => setConfirming(undefined)} />}
      <DataTable
        label="Sign-ups"
        columns={columns}
        rows={list.data?.signups}
        error={list.error}
        empty={status === 'pending' ? 'No sign-up is waiting for its confirmation.' : `No ${status} sign-ups.`}
        rowKey={(s) => s.id}
        paging={pagingOf(list.data?.pagination, setPage)}
      />
    </section>
  );
}

function ConfirmByHand({
  signup,
  onDone,
  onCancel,
}: {
  signup: Signup;
  onDone: (message: string) => Promise<void>;
  onCancel: () => void;
}) {
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const fields = error instanceof ApiError ? error.fields : {};
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await confirmSignup(signup.id, String(new FormData(e.currentTarget).get('reason') ?? ''));
      await onDone(`${signup.email} is confirmed and subscribed.`);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      className="card"
      role="alertdialog"
      aria-label={`Confirm ${signup.email} by hand`}
      onSubmit={submit}
      noValidate
    >
      <p>
        Confirm <strong>{signup.email}</strong> without the link? Only do this when you have their consent another way;
        the reason is kept with the sign-up.
      </p>
      <Alert error={error} shown={['reason']} />
      <Field label="Reason" error={fields.reason}>
        {(id, d) => (
          <input
            id={id}
            name="reason"
            required
            maxLength={500}
            placeholder="e.g. signed the paper form at the fair"
            aria-describedby={d}
            autoFocus
          />
        )}
      </Field>
      <div className="buttons">
        <button type="submit" disabled={busy}>
          Confirm sign-up
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
