// The database as Kysely sees it: one interface per area, each kept beside its migrations' owner.
import type { CoreTables } from './schema/core.ts';
import type { ImportsTables } from './schema/imports.ts';
import type { CampaignsTables } from './schema/campaigns.ts';
import type { SegmentsTables } from './schema/segments.ts';
import type { FormsTables } from './schema/forms.ts';
import type { WebhooksTables } from './schema/webhooks.ts';
import type { AutomationsTables } from './schema/automations.ts';
import type { MailTables } from './schema/mail.ts';
import type { DashboardTables } from './schema/dashboard.ts';
import type { WarmupTables } from './schema/warmup.ts';
import type { IdempotencyTables } from './schema/idempotency.ts';
import type { InstancesTables } from './schema/instances.ts';
import type { ContentTables } from './schema/content.ts';
import type { SendingTables } from './schema/sending.ts';

export interface DB
  extends
    CoreTables,
    ImportsTables,
    CampaignsTables,
    SegmentsTables,
    FormsTables,
    WebhooksTables,
    AutomationsTables,
    MailTables,
    DashboardTables,
    WarmupTables,
    IdempotencyTables,
    InstancesTables,
    ContentTables,
    SendingTables {}

export * from './schema/core.ts';
