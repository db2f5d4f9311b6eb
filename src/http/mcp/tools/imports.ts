// The two import tools (spec: get_single_import under subscribers:read, import_subscribers_to_group under
// subscribers:write). Both read or start the same durable import job as the REST CSV import (domain/imports.ts).
import { z } from 'zod';
import * as imports from '../../../domain/imports/imports.ts';
import * as out from '../outputs.ts';
import { defineTool } from '../tool.ts';

const Row = z.object({
  // only the type is checked here: a malformed address fails its row in the job (failed_count, errors[]),
  // not the whole call, exactly as a bad line of a CSV does
  email: z.string({ error: 'email is required for every subscriber' }).describe('Email address (required).'),
  first_name: z.string().optional().describe('First name.'),
  last_name: z.string().optional().describe('Last name.'),
  phone: z.string().optional().describe('Phone number, preferably a plus sign followed by digits.'),
  custom_fields: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('Custom field values by field key; unknown keys fail the row.'),
});

export const getSingleImport = defineTool({
  name: 'get_single_import',
  title: 'Get an import job',
  scope: 'subscribers:read',
  description:
    'Get the status of one import job (from import_subscribers_to_group or a CSV upload) by import_id: status processing, completed ' +
    'or failed, a message, total_rows, processed_rows, created_count, updated_count, failed_count and the first 100 row errors ' +
    '({row, email, reason}). Poll it after starting an import until status is no longer processing.',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  output: out.single(out.ImportJob),
  input: z.object({
    import_id: z.guid('import_id must be a UUID').describe('The import job id (job_id of the import), a UUID.'),
  }),
  async run(ctx, a) {
    return { data: await imports.get(ctx.db, ctx.key.accountId, a.import_id) };
  },
});

export const importSubscribersToGroup = defineTool({
  name: 'import_subscribers_to_group',
  title: 'Import subscribers into a group',
  scope: 'subscribers:write',
  description:
    'Import up to 50,000 subscribers into one group in the background, as the CSV import does: an existing email (case-insensitive) ' +
    'is updated with the given fields, a new one is created active, and everyone is added to the group. Rows with an invalid email ' +
    'or custom field fail individually. The plan limit is checked before the job starts ("Import would exceed the plan limit" with ' +
    'current_count, import_count, limit). Returns the job (status processing); follow it with get_single_import. The request body must stay under 8 MB, ' +
    'so send very large lists in several calls.',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  output: out.single(out.ImportJob),
  input: z.object({
    group_id: z
      .guid('group_id must be a UUID')
      .describe('The group every imported subscriber joins (UUID, from list_groups or create_group).'),
    subscribers: z
      .array(Row)
      .min(1, 'At least one subscriber is required')
      .max(imports.MAX_ROWS_PER_CALL, `At most ${imports.MAX_ROWS_PER_CALL} subscribers per call`)
      .describe(
        'The subscribers to import: [{email, first_name?, last_name?, phone?, custom_fields?}], at most 50,000.',
      ),
  }),
  async run(ctx, a) {
    return {
      data: await imports.startForGroup(ctx.db, ctx.queue, ctx.key.accountId, a.group_id, a.subscribers, 'mcp'),
    };
  },
});
