// forget_subscriber erases an address everywhere it appears. Each area that stores
// addresses (send ledger, webhook payload log, import rows, pending signups, automation runs) owns one
// eraser here; forget runs them all in its transaction, then erases the outbox itself.
import type { Eraser } from './eraser.ts';
import { erase as eraseImports } from './imports.ts';
import { erase as eraseCampaigns } from './campaigns.ts';
import { erase as eraseWebhooks } from './webhooks.ts';
import { erase as eraseForms } from './forms.ts';
import { erase as eraseAutomations } from './automations.ts';

export const ERASERS: Eraser[] = [eraseImports, eraseCampaigns, eraseWebhooks, eraseForms, eraseAutomations];
