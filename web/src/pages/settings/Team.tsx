// Settings → Team: the account's members and their roles. Owners and admins invite people by email
// (password sign-in: the mailed link sets their password; the invitations not accepted yet are listed with
// resend and revoke) or add them by email (OpenID Connect: they sign in with the provider), change a
// member's role (PUT /app/api/members/:id, users.changeRole: only an owner gives or takes the owner role,
// and the last owner stays one) and remove a member. Your own row is not changed from here.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ApiError } from '../../api/client.ts';
import type { Me, Role } from '../../api/session.ts';
import {
  invite,
  listInvitations,
  resendInvitation,
  revokeInvitation,
  teamKeys,
  type Invitation,
} from '../../api/team.ts';
import {
  addMember,
  changeRole as putRole,
  listMembers,
  removeMember,
  settingsKeys,
  type Member,
} from '../../api/settings.ts';
import { ConfirmButton } from '../../lib/Confirm.tsx';
import { actionsColumn, DataTable, type ColumnDef } from '../../lib/table.tsx';
import { Alert, Badge, Field, fieldError, formatDate } from '../../ui.tsx';

const ROLE_LABELS: Record<Role, string> = {
  owner: 'Owner',
  admin: 'Admin',
  editor: 'Editor',
  viewer: 'Viewer',
};

const who = (m: { name: string | null; email: string }) => (m.name ? `${m.name} <${m.email}>` : m.email);

export function Team({
  canManage,
  myId,
  myRole,
  signIn,
}: {
  canManage: boolean;
  myId: string;
  myRole: Role;
  signIn: Me['sign_in'];
}) {
  const client = useQueryClient();
  const { data, error } = useQuery({
    queryKey: settingsKeys.members,
    queryFn: () => listMembers().then((r) => r.members),
  });
  const reload = () => client.invalidateQueries({ queryKey: settingsKeys.members });
  const [actionError, setActionError] = useState<unknown>();
  const [notice, setNotice] = useState('');
  const changeRole = async (m: Member, role: Role) => {
    setActionError(undefined);
    setNotice('');
    // the select shows the new role at once: left to the refetch, it snapped back to the old one meanwhile
    client.setQueryData<Member[]>(settingsKeys.members, (members) =>
      members?.map((x) => (x.id === m.id ? { ...x, role } : x)),
    );
    try {
      await putRole(m.id, role);
      setNotice(`${m.email} is now ${ROLE_LABELS[role].toLowerCase()}.`);
    } catch (err) {
      setActionError(err);
    }
    await reload();
  };
  // an admin neither gives nor takes the owner role (the server says so too)
  const assignable = (m: Member): Role[] =>
    myRole === 'owner'
      ? ['owner', 'admin', 'editor', 'viewer']
      : m.role === 'owner'
        ? []
        : ['admin', 'editor', 'viewer'];
  const columns: ColumnDef<Member>[] = [
    { header: 'Member', accessorKey: 'email', cell: ({ row }) => <span className="break">{who(row.original)}</span> },
    {
      header: 'Role',
      accessorKey: 'role',
      cell: ({ row: { original: m } }) =>
        canManage && m.id !== myId && assignable(m).length > 0 ? (
          <select
            className="role-select"
            aria-label={`Role of ${m.email}`}
            value={m.role}
            onChange={(e) => changeRole(m, e.target.value as Role)}
          >
            {assignable(m).map((r) => (
              <option key={r} value={r}>
                {ROLE_LABELS[r]}
              </option>
            ))}
          </select>
        ) : (
          <>
            {ROLE_LABELS[m.role]}
            {m.id === myId && <span className="muted"> (you)</span>}
          </>
        ),
    },
    { header: 'Joined', accessorKey: 'joined_at', cell: (c) => formatDate(c.getValue() as string) },
  ];
  if (canManage)
    columns.push(
      actionsColumn(
        (m) =>
          m.id !== myId && (
            <ConfirmButton
              label="Remove"
              name={`Remove ${m.email}`}
              question={`Remove ${m.email} from the account?`}
              yes="Remove"
              onConfirm={async () => {
                setNotice('');
                await removeMember(m.id);
                await reload();
              }}
            />
          ),
      ),
    );
  return (
    <div className="card team">
      <h2>Team</h2>
      <p className="muted">
        Owners and admins manage keys, settings and the team; editors change subscribers, imports, segments and forms;
        viewers only read. Only an owner makes someone an owner.
      </p>
      <Alert error={actionError} />
      {notice && <Alert kind="success">{notice}</Alert>}
      <DataTable label="Members" columns={columns} rows={data} error={error} empty="No members." rowKey={(m) => m.id} />
      {canManage && signIn === 'password' && <Invitations />}
      {canManage && signIn === 'oidc' && <AddMember onAdded={reload} />}
    </div>
  );
}

function Invitations() {
  const client = useQueryClient();
  const { data, error } = useQuery({ queryKey: teamKeys.invitations, queryFn: listInvitations });
  const reload = () => client.invalidateQueries({ queryKey: teamKeys.invitations });
  const [notice, setNotice] = useState('');
  const [actionError, setActionError] = useState<unknown>();
  const said = (i: Invitation, done: string) =>
    setNotice(i.sent === false ? `The mail to ${i.email} could not be sent; try "Resend" later.` : done);
  const columns: ColumnDef<Invitation>[] = [
    { header: 'Invited', accessorKey: 'email', cell: ({ row }) => <span className="break">{who(row.original)}</span> },
    { header: 'Role', accessorKey: 'role', cell: (c) => ROLE_LABELS[c.getValue() as Role] },
    {
      header: 'Expires',
      accessorKey: 'expires_at',
      cell: (c) => {
        const at = c.getValue() as string;
        return new Date(at).getTime() < Date.now() ? <Badge tone="warn">Expired</Badge> : formatDate(at);
      },
    },
    actionsColumn((i) => (
      <div className="buttons">
        <button
          type="button"
          className="secondary small"
          aria-label={`Resend the invitation to ${i.email}`}
          onClick={async () => {
            setActionError(undefined);
            try {
              said(await resendInvitation(i.id), `A new link is on its way to ${i.email}.`);
            } catch (err) {
              setActionError(err);
            }
            await reload();
          }}
        >
          Resend
        </button>
        <ConfirmButton
          label="Revoke"
          name={`Revoke the invitation to ${i.email}`}
          question={`Revoke the invitation to ${i.email}? Its link stops working.`}
          yes="Revoke"
          onConfirm={async () => {
            await revokeInvitation(i.id);
            setNotice(`The invitation to ${i.email} is revoked.`);
            await reload();
          }}
        />
      </div>
    )),
  ];
  return (
    <>
      <InviteForm
        onInvited={async (i) => {
          said(i, `Invitation sent to ${i.email}.`);
          await reload();
        }}
      />
      <h3>Pending invitations</h3>
      {notice && <Alert kind="success">{notice}</Alert>}
      <Alert error={actionError} />
      <DataTable
        label="Pending invitations"
        columns={columns}
        rows={data}
        error={error}
        empty="No invitations waiting."
        rowKey={(i) => i.id}
      />
    </>
  );
}

function InviteForm({ onInvited }: { onInvited: (i: Invitation) => void }) {
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const formEl = e.currentTarget;
    const f = new FormData(formEl);
    setError(undefined);
    setBusy(true);
    try {
      const i = await invite({ email: f.get('email'), name: f.get('name') || undefined, role: f.get('role') });
      formEl.reset();
      onInvited(i);
    } catch (err) {
      setError(err);
    }
    setBusy(false);
  };
  return (
    <form className="team-add" onSubmit={submit} noValidate aria-labelledby="invite-title">
      <h3 id="invite-title">Invite someone</h3>
      <p className="muted">They get an email with a link to choose their password; it works once, for 7 days.</p>
      <Alert error={error} shown={['email', 'name', 'role']} />
      <div className="row">
        <Field label="Email to invite" error={fieldError(error, 'email')}>
          {(id, d) => <input id={id} name="email" type="email" required aria-describedby={d} />}
        </Field>
        <Field label="Their name" error={fieldError(error, 'name')}>
          {(id, d) => <input id={id} name="name" aria-describedby={d} />}
        </Field>
        <Field label="Role" id="invite-role" error={fieldError(error, 'role')}>
          {(id) => <RoleSelect id={id} />}
        </Field>
      </div>
      <button type="submit" disabled={busy}>
        {busy ? 'Sending…' : 'Send invitation'}
      </button>
    </form>
  );
}

function RoleSelect({ id }: { id: string }) {
  return (
    <select id={id} name="role" defaultValue="editor">
      <option value="admin">Admin — everything, including keys and settings</option>
      <option value="editor">Editor — subscribers, imports, notes</option>
      <option value="viewer">Viewer — read only</option>
    </select>
  );
}

/** With an identity provider: a member is added by email and links on their first sign-in there. */
function AddMember({ onAdded }: { onAdded: () => void }) {
  const [error, setError] = useState<unknown>();
  const fields = error instanceof ApiError ? error.fields : {};
  const add = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const formEl = e.currentTarget;
    const f = new FormData(formEl);
    setError(undefined);
    try {
      await addMember({ email: f.get('email'), name: f.get('name') || undefined, role: f.get('role') });
      formEl.reset();
      onAdded();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form className="team-add" onSubmit={add} noValidate aria-labelledby="add-member-title">
      <h3 id="add-member-title">Add a member</h3>
      <p className="muted">They sign in with your identity provider; the address must be the one it vouches for.</p>
      <Alert error={error} />
      <div className="row">
        <Field label="Member email" error={fields.email}>
          {(id, d) => <input id={id} name="email" type="email" required aria-describedby={d} />}
        </Field>
        <Field label="Member name" error={fields.name}>
          {(id) => <input id={id} name="name" />}
        </Field>
        <Field label="Role" error={fields.role}>
          {(id) => <RoleSelect id={id} />}
        </Field>
      </div>
      <button type="submit">Add member</button>
    </form>
  );
}
