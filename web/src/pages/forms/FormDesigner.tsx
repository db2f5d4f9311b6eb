// How a form looks and behaves on its public faces: heading, description, the fields' labels, order and
// required flags, button text, colours, a consent checkbox, the "check your inbox" and "confirmed"
// messages, the readable address /f/<slug> and how the pop-up opens. A live preview beside the inputs
// shows the form as visitors will see it; every text is rendered by React as text, never as markup.
import { useState, type FormEvent } from 'react';
import { updateForm, type FormDesign, type FormWithEmbed } from '../../api/forms.ts';
import { Alert, Field, fieldError } from '../../ui.tsx';

const DEFAULTS = {
  button_text: 'Subscribe',
  colors: { accent: '#166534', background: '#ffffff', text: '#1f2933' },
  check_inbox_message:
    'Almost done: we have sent you an email. Please open the link in it to confirm your subscription.',
  popup: { style: 'popup', trigger: 'delay', delay_seconds: 5, scroll_percent: 50 },
} as const;

const SHOWN = [
  'slug',
  'design.heading',
  'design.description',
  'design.button_text',
  'design.consent.text',
  'design.check_inbox_message',
  'design.confirmed_message',
];

type Fields = FormWithEmbed['fields'];

export function FormDesigner({
  form,
  onSaved,
}: {
  form: FormWithEmbed;
  onSaved: (form: FormWithEmbed, message: string) => Promise<void>;
}) {
  const d = form.design;
  const [heading, setHeading] = useState(d.heading ?? '');
  const [description, setDescription] = useState(d.description ?? '');
  const [button, setButton] = useState(d.button_text ?? '');
  const [colors, setColors] = useState({ ...DEFAULTS.colors, ...d.colors });
  const [consentOn, setConsentOn] = useState(Boolean(d.consent));
  const [consentText, setConsentText] = useState(
    d.consent?.text ?? 'Yes, send me the newsletter. I can unsubscribe at any time.',
  );
  const [consentRequired, setConsentRequired] = useState(d.consent?.required ?? true);
  const [checkInbox, setCheckInbox] = useState(d.check_inbox_message ?? '');
  const [confirmed, setConfirmed] = useState(d.confirmed_message ?? '');
  const [popup, setPopup] = useState({ ...DEFAULTS.popup, ...d.popup });
  const [slug, setSlug] = useState(form.slug ?? '');
  const [fields, setFields] = useState<Fields>(form.fields);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  const move = (i: number, by: -1 | 1) =>
    setFields((fs) => {
      const next = [...fs];
      const [f] = next.splice(i, 1);
      next.splice(i + by, 0, f!);
      return next;
    });
  const edit = (i: number, change: Partial<Fields[number]>) =>
    setFields((fs) => fs.map((f, k) => (k === i ? { ...f, ...change } : f)));

  const design: FormDesign = {
    ...(heading.trim() && { heading: heading.trim() }),
    ...(description.trim() && { description: description.trim() }),
    ...(button.trim() && { button_text: button.trim() }),
    colors,
    consent: consentOn ? { text: consentText.trim(), required: consentRequired } : null,
    ...(checkInbox.trim() && { check_inbox_message: checkInbox.trim() }),
    ...(confirmed.trim() && { confirmed_message: confirmed.trim() }),
    popup,
  };

  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    setError(undefined);
    setBusy(true);
    try {
      const saved = await updateForm(form.id, {
        design,
        slug: slug.trim() || null,
        fields: fields.map((f) => ({ key: f.key, label: f.label.trim() || undefined, required: f.required })),
      });
      await onSaved(saved, 'Design saved.');
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="card designer" onSubmit={submit} noValidate aria-labelledby="designer-title">
      <h2 id="designer-title">Design</h2>
      <Alert error={error} shown={SHOWN} />
      <div className="designer-grid">
        <div className="designer-inputs">
          <Field
            label="Readable address"
            error={fieldError(error, 'slug')}
            hint={`/f/${slug.trim() || 'your-words'}: a-z, 0-9 and hyphens; the /f/${form.id.slice(0, 8)}… address keeps working`}
          >
            {(id, dsc, invalid) => (
              <input
                id={id}
                value={slug}
                onChange={(e) => setSlug(e.target.value)}
                aria-describedby={dsc}
                aria-invalid={invalid}
              />
            )}
          </Field>
          <Field label="Heading" error={fieldError(error, 'design.heading')} hint="The form's name if empty">
            {(id, dsc, invalid) => (
              <input
                id={id}
                value={heading}
                maxLength={200}
                onChange={(e) => setHeading(e.target.value)}
                aria-describedby={dsc}
                aria-invalid={invalid}
              />
            )}
          </Field>
          <Field label="Description" error={fieldError(error, 'design.description')}>
            {(id, dsc, invalid) => (
              <textarea
                id={id}
                rows={2}
                value={description}
                maxLength={2000}
                onChange={(e) => setDescription(e.target.value)}
                aria-describedby={dsc}
                aria-invalid={invalid}
              />
            )}
          </Field>
          <fieldset>
            <legend>Fields: labels, order, required</legend>
            <ol className="designer-fields">
              {fields.map((f, i) => (
                <li key={f.key}>
                  <input
                    aria-label={`Label of ${f.key}`}
                    value={f.label}
                    maxLength={200}
                    onChange={(e) => edit(i, { label: e.target.value })}
                  />
                  <label className="check">
                    <input
                      type="checkbox"
                      checked={f.required}
                      disabled={f.key === 'email'}
                      onChange={(e) => edit(i, { required: e.target.checked })}
                      aria-label={`${f.key} required`}
                    />{' '}
                    required
                  </label>
                  <button
                    type="button"
                    className="secondary small"
                    disabled={i === 0}
                    onClick={() => move(i, -1)}
                    aria-label={`Move ${f.key} up`}
                  >
                    ↑
                  </button>
                  <button
                    type="button"
                    className="secondary small"
                    disabled={i === fields.length - 1}
                    onClick={() => move(i, 1)}
                    aria-label={`Move ${f.key} down`}
                  >
                    ↓
                  </button>
                </li>
              ))}
            </ol>
            <p className="hint">Which fields are asked is chosen under Edit form below.</p>
          </fieldset>
          <Field label="Button text" error={fieldError(error, 'design.button_text')}>
            {(id, dsc, invalid) => (
              <input
                id={id}
                value={button}
                placeholder={DEFAULTS.button_text}
                maxLength={60}
                onChange={(e) => setButton(e.target.value)}
                aria-describedby={dsc}
                aria-invalid={invalid}
              />
            )}
          </Field>
          <fieldset className="colors">
            <legend>Colours</legend>
            {(['accent', 'background', 'text'] as const).map((k) => (
              <label key={k}>
                <input type="color" value={colors[k]} onChange={(e) => setColors({ ...colors, [k]: e.target.value })} />{' '}
                {k === 'accent' ? 'Button' : k === 'background' ? 'Background' : 'Text'}
              </label>
            ))}
          </fieldset>
          <fieldset>
            <legend>Consent</legend>
            <label className="check">
              <input type="checkbox" checked={consentOn} onChange={(e) => setConsentOn(e.target.checked)} /> Ask for
              consent with a checkbox
            </label>
            {consentOn && (
              <>
                <Field
                  label="Consent text"
                  error={fieldError(error, 'design.consent.text')}
                  hint="Kept on the subscriber, with the date, when ticked"
                >
                  {(id, dsc, invalid) => (
                    <textarea
                      id={id}
                      rows={2}
                      maxLength={1000}
                      value={consentText}
                      onChange={(e) => setConsentText(e.target.value)}
                      aria-describedby={dsc}
                      aria-invalid={invalid}
                    />
                  )}
                </Field>
                <label className="check">
                  <input
                    type="checkbox"
                    checked={consentRequired}
                    onChange={(e) => setConsentRequired(e.target.checked)}
                  />{' '}
                  The box must be ticked to sign up
                </label>
              </>
            )}
          </fieldset>
          <Field
            label="“Check your inbox” message"
            error={fieldError(error, 'design.check_inbox_message')}
            hint="Shown right after a double opt-in sign-up"
          >
            {(id, dsc, invalid) => (
              <textarea
                id={id}
                rows={2}
                value={checkInbox}
                placeholder={DEFAULTS.check_inbox_message}
                maxLength={2000}
                onChange={(e) => setCheckInbox(e.target.value)}
                aria-describedby={dsc}
                aria-invalid={invalid}
              />
            )}
          </Field>
          <Field
            label="“Confirmed” message"
            error={fieldError(error, 'design.confirmed_message')}
            hint="Shown when the confirmation link is opened; the success message if empty"
          >
            {(id, dsc, invalid) => (
              <textarea
                id={id}
                rows={2}
                value={confirmed}
                placeholder={form.success_message}
                maxLength={2000}
                onChange={(e) => setConfirmed(e.target.value)}
                aria-describedby={dsc}
                aria-invalid={invalid}
              />
            )}
          </Field>
          <fieldset>
            <legend>Pop-up (embed script)</legend>
            <div className="row">
              <label>
                Style{' '}
                <select
                  value={popup.style}
                  onChange={(e) => setPopup({ ...popup, style: e.target.value as typeof popup.style })}
                >
                  <option value="popup">Pop-up in the middle</option>
                  <option value="slide_in">Slide-in in the corner</option>
                </select>
              </label>
              <label>
                Opens{' '}
                <select
                  value={popup.trigger}
                  onChange={(e) => setPopup({ ...popup, trigger: e.target.value as typeof popup.trigger })}
                >
                  <option value="delay">after a delay</option>
                  <option value="scroll">at a scroll depth</option>
                  <option value="exit">on exit intent</option>
                </select>
              </label>
              {popup.trigger !== 'scroll' ? (
                <label>
                  Seconds{' '}
                  <input
                    type="number"
                    min={0}
                    max={600}
                    value={popup.delay_seconds}
                    onChange={(e) => setPopup({ ...popup, delay_seconds: Number(e.target.value) })}
                  />
                </label>
              ) : (
                <label>
                  Scrolled %{' '}
                  <input
                    type="number"
                    min={1}
                    max={100}
                    value={popup.scroll_percent}
                    onChange={(e) => setPopup({ ...popup, scroll_percent: Number(e.target.value) })}
                  />
                </label>
              )}
            </div>
          </fieldset>
        </div>
        <Preview form={form} design={design} fields={fields} />
      </div>
      <button type="submit" disabled={busy}>
        {busy ? 'Saving…' : 'Save design'}
      </button>
    </form>
  );
}

/** The form as a visitor sees it, from the unsaved values (React renders every text as text). */
function Preview({ form, design, fields }: { form: FormWithEmbed; design: FormDesign; fields: Fields }) {
  const colors = { ...DEFAULTS.colors, ...design.colors };
  const after = form.double_opt_in
    ? (design.check_inbox_message ?? DEFAULTS.check_inbox_message)
    : form.success_message;
  return (
    <aside className="designer-preview" aria-label="Preview">
      <p className="muted">Preview</p>
      <div className="preview-card" style={{ background: colors.background, color: colors.text }}>
        <p className="preview-heading">{design.heading ?? form.name}</p>
        {design.description && <p>{design.description}</p>}
        {fields.map((f) => (
          <div key={f.key} className="preview-field">
            <span>
              {f.label}
              {f.required ? ' *' : ''}
            </span>
            <span className="preview-input" aria-hidden="true" />
          </div>
        ))}
        {design.consent && (
          <p className="preview-consent">
            <span aria-hidden="true">☐</span> {design.consent.text}
          </p>
        )}
        <span className="preview-button" style={{ background: colors.accent }}>
          {design.button_text ?? DEFAULTS.button_text}
        </span>
      </div>
      <p className="muted">After sending:</p>
      <p className="preview-after">{after}</p>
    </aside>
  );
}
