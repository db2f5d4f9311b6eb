// The setup automation tests share: the app over a real SMTP sink with a day lasting a second
// (AUTOMATION_TIME_SCALE=86400), unique addresses, the mail one address received, and automations
// created through REST.
import assert from 'node:assert/strict';
import type { Env } from '../../src/config.ts';
import { fileScope } from './scope.ts';
import { startServer, type ApiClient } from './server.ts';
import { startSink, type SinkOptions } from './smtpSink.ts';

export async function automationServer(env: Partial<Record<keyof Env, unknown>> = {}, sinkOptions: SinkOptions = {}) {
  const sink = await startSink(sinkOptions);
  const serverEnv = { SMTP_URL: sink.url, AUTOMATION_TIME_SCALE: 86_400, ...env };
  const s = await startServer(fileScope, serverEnv);
  // after the server's own stop (hooks run in order): its pooled SMTP connections are closed by then
  fileScope.after(() => sink.close());
  // PORT=0 gives PUBLIC_URL port 0; links in emails must point at the port the server really got
  s.config.publicUrl = s.url;
  return {
    s,
    sink,
    /** what the server was started with, for a second server on the same settings */
    env: serverEnv,
    mailTo: (email: string) => sink.messages.filter((m) => m.to.includes(email.toLowerCase())),
  };
}

let n = 0;
/** An address no other test in the process uses: <name>-<n>-<ms>@example.com. */
export const uniqueEmail = (name: string) => `${name}-${++n}-${Date.now()}@example.com`;

export async function createAutomation(api: ApiClient, body: Record<string, unknown>) {
  const r = await api.post('/automations', { name: 'Automation', ...body });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.data as { id: string };
}
