// Random but reproducible inputs for the fuzz tests: a seeded generator of JSON values, bodies, query
// strings, headers and path ids, biased towards the inputs that break servers (NUL, lone surrogates,
// prototype keys, deep nesting, huge numbers, wrong types, non-UTF-8 percent-encoding).
import type { FastifyInstance } from 'fastify';

/** mulberry32: tiny, fast, and the same sequence for the same seed (print the seed to replay a failure). */
export function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  const chance = (p: number) => next() < p;
  return { next, int, pick, chance };
}
export type Rng = ReturnType<typeof rng>;

const NASTY_STRINGS = [
  '',
  ' ',
  'a',
  'ada@example.com',
  ' ADA@EXAMPLE.COM ',
  'not-an-email',
  '@',
  'a@b',
  'a@b.c'.repeat(60),
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '😀'.repeat(10),
  'ǅ̸̡̛̖̗̘̙̜̝̞̟̠̤̥̦̩̪̫̬̭̮̯̰̱̲̳̹̺̻̼͇͈͉͍͎́̂̃̄̅̆̇̈̉̊̋̌̍̎̏̐̑̒̓̔̽̾̿̀́͂̓̈́͆͊͋͌̕̚ͅ͏͓͔͕͖͙͚͐͑͒͗͛',
  '\u202eevil',
  'ñ',
  '中文',
  '%',
  '_',
  '%_\\',
  "' or 1=1 --",
  '"; drop table subscribers; --',
  '<script>alert(1)</script>',
  '{{ 7*7 }}',
  '${7*7}',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'active',
  'unsubscribed',
  'bounced',
  'complained',
  'text',
  'number',
  'date',
  'boolean',
  '*',
  'subscribers:*',
  'subscribers:read',
  '1',
  '-1',
  '0',
  '1.5',
  '1e400',
  'NaN',
  'Infinity',
  '-0',
  '9'.repeat(40),
  '0x10',
  'true',
  'null',
  '[]',
  '{}',
  '2024-02-30',
  '1815-12-10',
  '2099-01-01T00:00:00Z',
  'yesterday',
  '+441234567',
  '+',
  '()',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '00000000-0000-0000-0000-00000000000g',
];

const FIELD_NAMES = [
  'email',
  'first_name',
  'last_name',
  'phone',
  'status',
  'group_ids',
  'custom_fields',
  'key',
  'name',
  'type',
  'scopes',
  'expires_at',
  'subscriber_limit',
  'owner_email',
  'owner_name',
  'timezone',
  'tracking_enabled',
  'postal_address',
  'blocking_checks',
  'track_opens',
  'track_clicks',
  'verify_emails',
  'default_from_email',
  'subject',
  'content_html',
  'url',
  'events',
  'filter',
  'trigger',
  'steps',
  'enabled',
  'group_id',
  'subscriber_ids',
  'delivery',
  'scheduled_at',
  'page',
  'per_page',
  'search',
  '__proto__',
  'constructor',
  '',
];

export function nastyString(r: Rng, ids: readonly string[]): string {
  const roll = r.next();
  if (roll < 0.05) return 'x'.repeat(r.pick([256, 1000, 70_000]));
  if (roll < 0.15 && ids.length > 0) return r.pick(ids);
  if (roll < 0.2) return String.fromCharCode(...Array.from({ length: r.int(20) }, () => r.int(0xffff)));
  return r.pick(NASTY_STRINGS);
}

export function jsonValue(r: Rng, ids: readonly string[], depth = 0): unknown {
  const roll = r.int(depth > 3 ? 6 : 9);
  switch (roll) {
    case 0:
      return null;
    case 1:
      return r.chance(0.5);
    case 2:
      return r.pick([0, -1, 1, 1.5, -0.0001, 1e308, -1e308, 2 ** 53, 2 ** 63, Number.MAX_SAFE_INTEGER + 2, 100, 101]);
    case 3:
    case 4:
    case 5:
      return nastyString(r, ids);
    case 6:
    case 7:
      return Array.from({ length: r.int(4) }, () => jsonValue(r, ids, depth + 1));
    default:
      return jsonObject(r, ids, depth + 1);
  }
}

export function jsonObject(r: Rng, ids: readonly string[], depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = r.int(5); i > 0; i--) {
    const key = r.chance(0.8) ? r.pick(FIELD_NAMES) : nastyString(r, ids);
    Object.defineProperty(out, key, {
      value: jsonValue(r, ids, depth),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** A request body as text: mostly JSON objects with the API's field names, sometimes anything at all. */
export function body(r: Rng, ids: readonly string[]): string | undefined {
  const roll = r.next();
  if (roll < 0.1) return undefined;
  if (roll < 0.6) return JSON.stringify(jsonObject(r, ids));
  if (roll < 0.75) return JSON.stringify(jsonValue(r, ids));
  return r.pick([
    '',
    '{',
    '}',
    '[',
    'null',
    '{"a":1}x',
    '{"__proto__":{"polluted":1}}',
    '{"constructor":{"prototype":{"polluted":1}}}',
    '['.repeat(20_000) + ']'.repeat(20_000),
    '{"a":'.repeat(5000) + '1' + '}'.repeat(5000),
    '[' + '1,'.repeat(100_000) + '1]',
    '{"email":"\\ud800@example.com"}',
    '{"first_name":"\\u0000"}',
    '{"custom_fields":{"\\u0000":1}}',
    '{"email":"a@example.com","email":"b@example.com"}',
    '\uFEFF{"email":"bom@example.com"}',
    'email=a@example.com',
    '\x00\x01\x02',
    '{"search":"' + 'a'.repeat(300) + '"}',
  ]);
}

export function queryString(r: Rng, ids: readonly string[]): string {
  const names = [
    'page',
    'per_page',
    'status',
    'search',
    'group_id',
    'filter',
    'page[]',
    '__proto__',
    'constructor[prototype][x]',
    'q',
    '',
  ];
  const values = [
    '1',
    '2',
    '0',
    '-1',
    '1.5',
    'NaN',
    'Infinity',
    '1e400',
    '9'.repeat(30),
    '',
    'active',
    'bounced',
    'x',
    '%FF',
    '%FE%FF',
    '%',
    '%0',
    '%00',
    '%C0%AF',
    '%ED%A0%80',
    encodeURIComponent('😀'),
    encodeURIComponent('%_'),
    'a+b',
    '%2B',
    '00000000-0000-0000-0000-000000000000',
    ...ids.slice(0, 3),
  ];
  const parts: string[] = [];
  for (let i = r.int(5); i > 0; i--) {
    const name = r.pick(names);
    parts.push(r.chance(0.1) ? name : `${name}=${r.chance(0.1) ? 'x'.repeat(3000) : r.pick(values)}`);
  }
  return parts.length ? `?${parts.join('&')}` : r.pick(['', '?', '?&', '??', '?=']);
}

export function pathId(r: Rng, ids: readonly string[]): string {
  return r.pick([
    ...ids,
    ...ids,
    '00000000-0000-0000-0000-000000000000',
    'not-a-uuid',
    '1',
    '-1',
    '%FF',
    '%00',
    '%2F',
    '..',
    'null',
    encodeURIComponent('😀'),
    '00000000-0000-0000-0000-00000000000G',
    '0'.repeat(300),
    "'",
    '%E2%80%AE',
  ]);
}

export function contentType(r: Rng): string | undefined {
  return r.pick([
    'application/json',
    'application/json',
    'application/json',
    'application/json; charset=utf-8',
    'application/json; charset=latin1',
    undefined,
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data',
    'multipart/form-data; boundary=----x',
    'application/xml',
    'application/json-patch+json',
    '*/*',
    'application/',
    ';',
    'application/json; boundary=x; charset="utf-8"',
  ]);
}

export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;

export interface Route {
  path: string;
  methods: string[];
}

/** Every route Fastify knows, from printRoutes: the fuzzer reaches routes other files add without a list to keep. */
export function routesOf(app: FastifyInstance): Route[] {
  const routes: Route[] = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^(.*?)(?:├── |└── )(.+?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!m) continue;
    const depth = m[1]!.length / 4;
    stack.length = depth;
    stack.push(m[2]!);
    if (m[3]) routes.push({ path: stack.join(''), methods: m[3].split(', ') });
  }
  return routes;
}
