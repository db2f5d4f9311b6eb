// The editor's A/B test section: 2-5 variants of the subject, preview text or sender name (a field left
// empty keeps the campaign's), the share of the audience that tests them, how the winner is chosen —
// human opens (privacy proxies' automatic opens never count), clicks or by hand — and the wait before
// the winner goes to everyone else.
import type { AbTestInput } from './model.ts';

const EMPTY_VARIANT = { subject: '', preview_text: '', from_name: '' };

export function newAbTest(subject: string): AbTestInput {
  return {
    variants: [{ ...EMPTY_VARIANT, subject }, { ...EMPTY_VARIANT }],
    test_percent: 20,
    winner_by: 'opens',
    wait_hours: 4,
  };
}

export function AbTestEditor({
  value,
  subject,
  errors,
  onChange,
}: {
  value: AbTestInput | null;
  subject: string;
  errors?: string[];
  onChange: (next: AbTestInput | null) => void;
}) {
  const letter = (i: number) => String.fromCharCode(65 + i);
  const setVariant = (i: number, key: 'subject' | 'preview_text' | 'from_name', v: string) =>
    value && onChange({ ...value, variants: value.variants.map((x, j) => (j === i ? { ...x, [key]: v } : x)) });
  return (
    <div className="card" aria-label="A/B test">
      <h2>A/B test</h2>
      <label className="inline">
        <input
          type="checkbox"
          checked={!!value}
          onChange={(e) => onChange(e.target.checked ? newAbTest(subject) : null)}
        />{' '}
        Test variants on part of the audience first, then send the winner to the rest
      </label>
      {errors?.map((e) => (
        <p key={e} className="error" role="alert">
          {e}
        </p>
      ))}
      {value && (
        <>
          <table className="table">
            <thead>
              <tr>
                <th>Variant</th>
                <th>Subject</th>
                <th>Preview text</th>
                <th>Sender name</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {value.variants.map((v, i) => (
                <tr key={i}>
                  <th scope="row">{letter(i)}</th>
                  {(['subject', 'preview_text', 'from_name'] as const).map((k) => (
                    <td key={k}>
                      <input
                        aria-label={`Variant ${letter(i)} ${k.replace('_', ' ')}`}
                        placeholder="the campaign's"
                        value={v[k] ?? ''}
                        onChange={(e) => setVariant(i, k, e.target.value)}
                      />
                    </td>
                  ))}
                  <td>
                    {value.variants.length > 2 && (
                      <button
                        type="button"
                        className="secondary small"
                        aria-label={`Remove variant ${letter(i)}`}
                        onClick={() => onChange({ ...value, variants: value.variants.filter((_, j) => j !== i) })}
                      >
                        Remove
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {value.variants.length < 5 && (
            <button
              type="button"
              className="secondary small"
              onClick={() => onChange({ ...value, variants: [...value.variants, { ...EMPTY_VARIANT }] })}
            >
              Add variant
            </button>
          )}
          <div className="row">
            <label>
              Test share (% of the audience, split evenly)
              <input
                type="number"
                min={1}
                max={100}
                value={value.test_percent}
                onChange={(e) => onChange({ ...value, test_percent: Number(e.target.value) })}
              />
            </label>
            <label>
              Winner by
              <select
                value={value.winner_by}
                onChange={(e) => onChange({ ...value, winner_by: e.target.value as AbTestInput['winner_by'] })}
              >
                <option value="opens">Human opens (privacy-proxy opens left out)</option>
                <option value="clicks">Clicks</option>
                <option value="manual">I pick it by hand</option>
              </select>
            </label>
            <label>
              Wait (hours, 1 to 168)
              <input
                type="number"
                min={1}
                max={168}
                value={value.wait_hours}
                onChange={(e) => onChange({ ...value, wait_hours: Number(e.target.value) })}
              />
            </label>
          </div>
          <p className="hint">
            {value.test_percent}% of the audience gets one of the {value.variants.length} variants at random;{' '}
            {value.winner_by === 'manual'
              ? 'you pick the winner on the report, and it goes to the rest at once.'
              : `after ${value.wait_hours} hour${value.wait_hours === 1 ? '' : 's'} the variant with the best ${value.winner_by === 'opens' ? 'human open' : 'click'} rate goes to the rest.`}
          </p>
        </>
      )}
    </div>
  );
}

/** The test as the API takes it: empty fields are the campaign's own. */
export function abTestBody(t: AbTestInput | null): AbTestInput | null {
  if (!t) return null;
  const orNone = (v: string | null | undefined) => (v?.trim() ? v.trim() : undefined);
  return {
    ...t,
    variants: t.variants.map((v) => ({
      subject: orNone(v.subject),
      preview_text: orNone(v.preview_text),
      from_name: orNone(v.from_name),
    })),
  };
}
