// Settings → Team: the account's members and their roles. Owners and admins add a member, change a
// member's role (PUT /app/api/members/:id, users.changeRole: only an owner gives or takes the owner role,
// and the last owner stays one) and remove a member. Your own row is not changed from here.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, ApiError, type Role } from '../api.ts';
import { actionsColumn, DataTable, type ColumnDef } from '../lib/table.tsx';
import { Alert, Field, formatDate } from '../ui.tsx';

interface Member {
  id: string;
  email: string;
  name: string | null;
  role: Role;
  joined_at: string;
}

const ROLE_LABELS: Record<Role, string> = {
  owner: 'Owner',
  admin: 'Admin',
  editor: 'Editor',
  viewer: 'Viewer',
};

const who = (m: Member) => (m.name ? `${m.name} <${m.email}>` : m.email);

export function Team({ canManage, myId, myRole }: { canManage: boolean; myId: string; myRole: Role }) {
  const client = useQueryClient();
  const { data, error } = useQuery({ queryKey: ['members'], queryFn: () => api.get<Member[]>('/members') });
  const reload = () => client.invalidateQueries({ queryKey: ['members'] });
  const [actionError, setActionError] = useState<unknown>();
  const [notice, setNotice] = useState('');
  const changeRole = async (m: Member, role: Role) => {
    setActionError(undefined);
    setNotice('');
    // the select shows the new role at once: left to the refetch, it snapped back to the old one meanwhile
    client.setQueryData<Member[]>(['members'], (members) => members?.map((x) => (x.id === m.id ? { ...x, role } : x)));
    try {
      await api.put(`/members/${m.id}`, { role });
      setNotice(`${m.email} is now ${ROLE_LABELS[role].toLowerCase()}.`);
    } catch (err) {
      setActionError(err);
    }
    await reload();
  };
  const remove = async (m: Member) => {
    if (!confirm(`Remove ${m.email} from the account?`)) return;
    setActionError(undefined);
    setNotice('');
    try {
      await api.del(`/members/${m.id}`);
      await reload();
    } catch (err) {
      setActionError(err);
    }
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
            <button
              type="button"
              className="danger-outline small"
              onClick={() => remove(m)}
              aria-label={`Remove ${m.email}`}
            >
              Remove
            </button>
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
      {canManage && <AddMember onAdded={reload} />}
    </div>
  );
}

function AddMember({ onAdded }: { onAdded: () => void }) {
  const [error, setError] = useState<unknown>();
  const fields = error instanceof ApiError ? error.fields : {};
  const add = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const formEl = e.currentTarget;
    const f = new FormData(formEl);
    setError(undefined);
    try {
      await api.post('/members', {
        email: f.get('email'),
        name: f.get('name') || undefined,
        role: f.get('role'),
        password: f.get('password') || undefined,
      });
      formEl.reset();
      onAdded();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form className="team-add" onSubmit={add} noValidate aria-labelledby="add-member-title">
      <h3 id="add-member-title">Add a member</h3>
      <Alert error={error} />
      <div className="row">
        <Field label="Member email" error={fields.email}>
          {(id, d) => <input id={id} name="email" type="email" required aria-describedby={d} />}
        </Field>
        <Field label="Member name" error={fields.name}>
          {(id) => <input id={id} name="name" />}
        </Field>
        <Field label="Role" error={fields.role}>
          {(id) => (
            <select id={id} name="role" defaultValue="editor">
              <option value="admin">Admin — everything, including keys and settings</option>
              <option value="editor">Editor — subscribers, imports, notes</option>
              <option value="viewer">Viewer — read only</option>
            </select>
          )}
        </Field>
      </div>
      <Field
        label="Initial password"
        error={fields.password}
        hint="For email + password sign-in; leave empty when members sign in through your identity provider."
      >
        {(id, d) => <input id={id} name="password" type="password" autoComplete="new-password" aria-describedby={d} />}
      </Field>
      <button type="submit">Add member</button>
    </form>
  );
}
