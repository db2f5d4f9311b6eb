// Settings → Warm-up: the account's sending domains that are being warmed up (/app/api/warmup,
// campaigns/warmup.ts). Each shows today's cap and how much of it campaigns used; a new plan for a domain;
// deleting one ends its warm-up (campaigns waiting on it go on at once).
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import {
  createWarmupPlan,
  deleteWarmupPlan,
  listWarmupPlans,
  settingsKeys,
  type WarmupPlan,
} from '../../api/settings.ts';
import { ConfirmButton } from '../../lib/Confirm.tsx';
import { actionsColumn, DataTable, type ColumnDef } from '../../lib/table.tsx';
import { Alert, Field, fieldError, formatDate } from '../../ui.tsx';

const KEY = settingsKeys.warmup;

function todayText(p: WarmupPlan): string {
  const t = p.today;
  if (t.cap === null) return `Warm-up over: no cap (${t.used.toLocaleString()} sent today)`;
  if (t.day < 1) return `Starts ${p.start_date}; ${t.cap.toLocaleString()} a day until then`;
  return `Day ${t.day} of ${p.days}: ${t.used.toLocaleString()} of ${t.cap.toLocaleString()} used`;
}

export function Warmup({ canEdit }: { canEdit: boolean }) {
  const { data, error } = useQuery({
    queryKey: KEY,
    queryFn: listWarmupPlans,
    refetchInterval: 15_000,
  });
  const columns: ColumnDef<WarmupPlan>[] = [
    { header: 'Domain', accessorKey: 'domain', cell: (c) => <code>{c.getValue() as string}</code> },
    { id: 'today', header: 'Today', enableSorting: false, cell: ({ row }) => todayText(row.original) },
    {
      id: 'resets',
      header: 'Next day starts',
      enableSorting: false,
      cell: ({ row }) => formatDate(row.original.today.resets_at),
    },
    {
      id: 'schedule',
      header: 'Schedule',
      enableSorting: false,
      cell: ({ row }) => {
        const p = row.original;
        return `${p.first_day_cap.toLocaleString()} on day 1, ×${p.growth} a day, no cap after day ${p.days}`;
      },
    },
    ...(canEdit ? [actionsColumn<WarmupPlan>((x) => <DeletePlan plan={x} />)] : []),
  ];
  return (
    <section className="card" aria-labelledby="warmup-title" id="warmup">
      <h2 id="warmup-title">Warm-up</h2>
      <p className="muted">
        A new sending domain earns the mailbox providers’ trust by sending a little more each day. A plan caps the
        campaign messages sent from its domain per day (midnight to midnight in the account’s time zone); a campaign
        above the cap sends what the day allows and goes on by itself the next day.
      </p>
      <DataTable
        label="Warm-up plans"
        columns={columns}
        rows={data?.plans}
        error={error}
        empty="No domain is being warmed up."
        rowKey={(p) => p.id}
      />
      {canEdit && <NewPlan />}
    </section>
  );
}

function NewPlan() {
  const client = useQueryClient();
  const [error, setError] = useState<unknown>();
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const el = e.currentTarget;
    const f = new FormData(el);
    const text = (k: string) => String(f.get(k) ?? '').trim();
    const num = (k: string) => (text(k) === '' ? undefined : Number(text(k)));
    setError(undefined);
    try {
      await createWarmupPlan({
        domain: text('domain'),
        first_day_cap: num('first_day_cap'),
        growth: num('growth'),
        days: num('days'),
        start_date: text('start_date') || undefined,
      });
      el.reset();
      await client.invalidateQueries({ queryKey: KEY });
    } catch (err) {
      setError(err);
    }
  };
  const input =
    (name: string, props: Record<string, unknown> = {}) =>
    (id: string, d?: string, invalid?: boolean) => (
      <input id={id} name={name} aria-describedby={d} aria-invalid={invalid} {...props} />
    );
  return (
    <form onSubmit={submit} noValidate aria-label="New warm-up plan" className="new-field">
      <h3>Warm up a domain</h3>
      <Alert error={error} shown={['domain', 'first_day_cap', 'growth', 'days', 'start_date']} />
      <div className="row">
        <Field
          label="Domain"
          id="warmup-domain"
          error={fieldError(error, 'domain')}
          hint="The part after @ of the campaigns’ From address"
        >
          {input('domain', { required: true, placeholder: 'news.example.com' })}
        </Field>
        <Field label="Day 1 cap" id="warmup-cap" error={fieldError(error, 'first_day_cap')}>
          {input('first_day_cap', { type: 'number', min: 1, step: 1, defaultValue: 200 })}
        </Field>
        <Field label="Daily growth" id="warmup-growth" error={fieldError(error, 'growth')} hint="×, from 1 to 10">
          {input('growth', { type: 'number', min: 1, max: 10, step: 0.1, defaultValue: 2 })}
        </Field>
        <Field label="Days" id="warmup-days" error={fieldError(error, 'days')} hint="No cap after these">
          {input('days', { type: 'number', min: 1, max: 365, step: 1, defaultValue: 10 })}
        </Field>
        <Field label="Start" id="warmup-start" error={fieldError(error, 'start_date')} hint="Today if empty">
          {input('start_date', { type: 'date' })}
        </Field>
      </div>
      <button type="submit">Create plan</button>
    </form>
  );
}

function DeletePlan({ plan }: { plan: WarmupPlan }) {
  const client = useQueryClient();
  return (
    <ConfirmButton
      name={`Delete the warm-up of ${plan.domain}`}
      question={`End the warm-up of ${plan.domain}? Its campaigns are no longer capped.`}
      onConfirm={async () => {
        await deleteWarmupPlan(plan.id);
        await client.invalidateQueries({ queryKey: KEY });
      }}
    />
  );
}
