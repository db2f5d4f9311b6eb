// The spec's field sets of a subscriber, per operation ("Which fields each response carries"), for the
// faces that pick them: REST answers with exactly these; MCP's get uses the same full set, and its
// add/update add created_at, which agents use to tell a created subscriber from an updated one.
export const SUBSCRIBER_VIEW = {
  create: ['id', 'email', 'first_name', 'last_name', 'phone', 'status', 'created_at'],
  get: [
    'id',
    'email',
    'first_name',
    'last_name',
    'phone',
    'status',
    'groups',
    'custom_fields',
    'notes',
    'created_at',
    'updated_at',
  ],
  update: ['id', 'email', 'first_name', 'last_name', 'phone', 'status', 'custom_fields', 'updated_at'],
  upsert: ['id', 'email', 'first_name', 'last_name', 'phone', 'status', 'custom_fields', 'created_at', 'updated_at'],
} as const;
