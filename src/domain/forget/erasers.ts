// forget_subscriber erases an address everywhere it appears. Each context that stores addresses (send
// ledger, webhook payload log, import rows, pending signups, automation runs, mail that came home) owns its
// eraser, in its own folder (<context>/eraser.ts, the statements that erase one address); this list is the only place that
// names them all. It lives with the forget use case, not in subscribers/, so that no context folder and
// the subscribers folder import each other.
import type { Eraser } from '../eraser.ts';
import { erase as eraseImports } from '../imports/eraser.ts';
import { erase as eraseCampaigns } from '../campaigns/eraser.ts';
import { erase as eraseWebhooks } from '../webhooks/eraser.ts';
import { erase as eraseForms } from '../forms/eraser.ts';
import { erase as eraseAutomations } from '../automations/eraser.ts';
import { erase as eraseInbound } from '../feedback/eraser.ts';

export const ERASERS: Eraser[] = [
  eraseImports,
  eraseCampaigns,
  eraseWebhooks,
  eraseForms,
  eraseAutomations,
  eraseInbound,
];
