// MCP tools for webhooks (spec scopes webhooks:read / webhooks:write): list, get (with secret and recent
// deliveries), create, update, delete. Each parses its arguments and calls src/domain/webhooks/.
import { z } from 'zod';
import * as webhooks from '../../../domain/webhooks/webhooks.ts';
import { listResult, PageArgs } from '../pagination.ts';
import * as out from '../outputs.ts';
import { defineTool, type Tool } from '../tool.ts';

const WebhookId = z
  .guid('webhook_id must be a UUID')
  .describe('The webhook id (UUID), as returned by list_webhooks or create_webhook.');
const EVENTS_TEXT = webhooks.WEBHOOK_EVENTS.join(', ');

const listWebhooks = defineTool({
  name: 'list_webhooks',
  title: 'List webhooks',
  scope: 'webhooks:read',
  description:
    'List the webhooks of the account, newest first, 25 per page by default. Each webhook is {id, name, url, events, enabled, ' +
    'disabled_reason, last_delivery {at, status_code} or null, created_at, updated_at}. The signing secret is not listed; ' +
    'use get_webhook for it and for the recent delivery log.',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  output: out.page(out.Webhook),
  input: z.object({ ...PageArgs }),
  async run(ctx, a) {
    return listResult(await webhooks.list(ctx.db, ctx.key.accountId, a));
  },
});

const getWebhook = defineTool({
  name: 'get_webhook',
  title: 'Get a webhook',
  scope: 'webhooks:read',
  description:
    'Get one webhook with its signing secret (whsec_…, for verifying the Standard Webhooks signature) and its 10 most recent ' +
    'deliveries, each with status (pending, delivered, failed), attempts (status_code, duration_ms, response snippet, error) ' +
    'and the payload sent. Fails with "Webhook not found" for an unknown webhook_id.',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  output: out.single(out.WebhookDetail),
  input: z.object({ webhook_id: WebhookId }),
  async run(ctx, a) {
    return { data: await webhooks.get(ctx.db, ctx.key.accountId, a.webhook_id) };
  },
});

const createWebhook = defineTool({
  name: 'create_webhook',
  title: 'Create a webhook',
  scope: 'webhooks:write',
  description:
    'Register an http(s) URL to receive a signed POST {id, event_type, created_at, account_id, data} for each event of the ' +
    `listed types. Event types: ${EVENTS_TEXT} ("*" = all). The URL must not point to a private or loopback address. ` +
    'Returns the webhook with its secret (whsec_…); failed deliveries are retried for about a day.',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  output: out.single(out.WebhookWithSecret),
  input: webhooks.NewWebhook,
  async run(ctx, a) {
    return { data: await webhooks.create(ctx.db, ctx.key.accountId, a, ctx.config) };
  },
});

const updateWebhook = defineTool({
  name: 'update_webhook',
  title: 'Update a webhook',
  scope: 'webhooks:write',
  description:
    "Change a webhook's name, url, events or enabled flag; fields left out stay as they are. Setting enabled to true again " +
    '(for example after it was disabled for failing 5 days) resumes its pending deliveries. The secret does not change. ' +
    'Fails with "Webhook not found" for an unknown webhook_id.',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  output: out.single(out.Webhook),
  input: webhooks.WebhookUpdate.extend({ webhook_id: WebhookId }),
  async run(ctx, { webhook_id, ...changes }) {
    return { data: await webhooks.update(ctx.db, ctx.key.accountId, webhook_id, changes, ctx.config) };
  },
});

const deleteWebhook = defineTool({
  name: 'delete_webhook',
  title: 'Delete a webhook',
  scope: 'webhooks:write',
  description:
    'Delete a webhook and its delivery log; deliveries not yet made are dropped. This cannot be undone. ' +
    'Fails with "Webhook not found" for an unknown webhook_id.',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  output: out.single(out.Deleted),
  input: z.object({ webhook_id: WebhookId }),
  async run(ctx, a) {
    await webhooks.remove(ctx.db, ctx.key.accountId, a.webhook_id);
    return { data: { id: a.webhook_id, deleted: true } };
  },
});

export const webhookTools: Tool[] = [listWebhooks, getWebhook, createWebhook, updateWebhook, deleteWebhook];
