// The groups an import adds its subscribers to: a checklist of the account's groups.
import { useGroups } from '../subscribers/model.ts';

export function GroupPicker({ value, onChange }: { value: string[]; onChange: (ids: string[]) => void }) {
  const groups = useGroups();
  return (
    <fieldset>
      <legend>Add the imported subscribers to groups</legend>
      {groups.data?.groups.length === 0 && <p className="muted">No groups yet (create them under Groups).</p>}
      <div className="check-grid">
        {groups.data?.groups.map((g) => (
          <label key={g.id} className="check">
            <input
              type="checkbox"
              name="group"
              checked={value.includes(g.id)}
              onChange={(e) => onChange(e.target.checked ? [...value, g.id] : value.filter((id) => id !== g.id))}
            />
            {g.name}
          </label>
        ))}
      </div>
    </fieldset>
  );
}
