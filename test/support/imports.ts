// An import through the spec's upload (multipart, its fields before the file) and a wait for its job.
import assert from 'node:assert/strict';
import { restClient } from './server.ts';

/** POST /subscribers/import-async with the CSV and the given form fields (sent before the file). */
export async function uploadCsv(
  url: string,
  key: string,
  content: string | Uint8Array,
  opts: { fields?: Record<string, string>; filename?: string; type?: string } = {},
) {
  const form = new FormData();
  for (const [k, v] of Object.entries(opts.fields ?? {})) form.append(k, v);
  form.append('file', new Blob([content], { type: opts.type ?? 'text/csv' }), opts.filename ?? 'list.csv');
  const res = await fetch(`${url}/api/v1/external/subscribers/import-async`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as any };
}

/** The job once it is no longer processing (polled every 50 ms, 30 s at the most). */
export async function importFinished(url: string, key: string, jobId: string) {
  const api = restClient(url, key);
  for (let i = 0; i < 600; i++) {
    const res = await api.get(`/imports/${jobId}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    if (res.body.data.status !== 'processing') return res.body.data;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('import did not finish');
}
