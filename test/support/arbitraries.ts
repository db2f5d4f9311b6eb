// fast-check arbitraries for the edge fuzz suites: values that follow a JSON Schema (an MCP tool's
// inputSchema, made by the server from the same zod schema REST validates with), where any value may
// instead be taken from a catalogue of hostile inputs. Mostly-valid input reaches deep into a route, so
// the one hostile value meets the code that would store, render or compare it.
import fc from 'fast-check';

type Schema = Record<string, any>;

const MB = 1024 * 1024;

/** Values that have broken servers: text PostgreSQL cannot hold, numbers past int4/int8, look-alike dates,
 *  prototype keys, template and SQL fragments, wrong shapes. */
export const HOSTILE: readonly unknown[] = [
  '\u0000',
  'a\u0000b',
  'x\u0001\u001b[31m\u007f\u0085y',
  '\ud800',
  'a\udfffb',
  '😀 𝕏 ﷽ \u202eRTL\u202c zero\u200bwidth Ω ß İ',
  'e\u0301', // é, decomposed
  '\ufeffbom',
  '',
  ' ',
  'x'.repeat(256),
  'x'.repeat(70_000),
  'y'.repeat(MB - 100),
  '%00',
  '%0d%0aSet-Cookie:%20pwn=1',
  "' or 1=1 --",
  "'); drop table subscribers; --",
  '{{ subscriber.email | append: 1 }',
  "{% include '/etc/passwd' %}",
  "{% render 'x' %}",
  '{% for i in (1..100000000) %}x{% endfor %}',
  '{% nosuchtag %}',
  '{{ 1 | nosuchfilter }}',
  '<mjml><mj-body><mj-section>',
  '12345',
  '2026-13-45T99:99:99Z',
  '0000-01-01T00:00:00Z',
  '+275760-09-13T00:00:00Z',
  'NaN',
  'Infinity',
  '-0',
  '1e400',
  '__proto__',
  'constructor',
  'http://[::127.0.0.1]/',
  'https://:@example.com/',
  'http://127.0.0.1:0/',
  'https://user:pass@evil.example/',
  'javascript:alert(1)',
  '00000000-0000-0000-0000-000000000000',
  2147483647,
  2147483648,
  -2147483649,
  2 ** 53,
  2 ** 63,
  -(2 ** 63),
  1e308,
  -0,
  0.5,
  -1,
  true,
  null,
  [],
  [null],
  {},
  { __proto__: { polluted: 1 } },
  JSON.parse('{"__proto__": {"polluted": 1}, "constructor": {"prototype": {"polluted": 1}}}'),
  Array.from({ length: 2_000 }, (_, i) => i),
];

/** The few values that break text handling, drawn more often than the rest of the catalogue. */
const TEXT_BREAKERS = HOSTILE.slice(0, 7);

export const hostile = (): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 1, arbitrary: fc.constantFrom(...TEXT_BREAKERS) },
    { weight: 2, arbitrary: fc.constantFrom(...HOSTILE) },
  );

/** Text of every kind: any code point (lone surrogates included), or ordinary words. */
const anyText = (maxLength: number) =>
  fc.oneof(
    fc.string({ unit: 'binary', maxLength }),
    fc.string({ unit: 'grapheme', maxLength }),
    fc.constantFrom('Ada', 'Ada Lovelace', 'Newsletter', 'news', 'VIP', 'a'),
  );

export interface Pools {
  /** ids worth trying: the caller's own, another account's, unknown ones */
  ids: readonly string[];
}

/**
 * An arbitrary for a JSON Schema. `hostileWeight` of 0 gives values that follow the schema (as far as a
 * generator can); a positive weight lets any value be replaced from HOSTILE instead.
 */
export function fromSchema(
  schema: Schema,
  pools: Pools,
  hostileWeight = 1,
  root: Schema = schema,
  depth = 0,
): fc.Arbitrary<unknown> {
  const valid = follow(schema, pools, hostileWeight, root, depth);
  return hostileWeight > 0
    ? fc.oneof({ weight: 6, arbitrary: valid }, { weight: hostileWeight, arbitrary: hostile() })
    : valid;
}

function follow(schema: Schema, pools: Pools, w: number, root: Schema, depth: number): fc.Arbitrary<unknown> {
  const next = (s: Schema) => fromSchema(s, pools, w, root, depth + 1);
  if (depth > 6) return fc.constant(null);
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.split('/').pop()!;
    const target = root.$defs?.[name] ?? root.definitions?.[name];
    return target ? follow(target, pools, w, root, depth + 1) : fc.constant({});
  }
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(alternatives))
    return fc.oneof(...alternatives.map((s: Schema) => follow(s, pools, w, root, depth + 1)));
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) return follow(schema.allOf[0], pools, w, root, depth + 1);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      return stringFor(schema, pools);
    case 'integer':
      return fc.integer({
        min: Math.max(schema.minimum ?? -1000, -2_147_483_648),
        max: Math.min(schema.maximum ?? 100_000, 2_147_483_647),
      });
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(schema.items ? next(schema.items) : hostile(), {
        minLength: Math.min(schema.minItems ?? 0, 3),
        maxLength: Math.min(schema.maxItems ?? 3, 3),
      });
    case 'object': {
      const props: Record<string, Schema> = schema.properties ?? {};
      const required = new Set<string>(schema.required ?? []);
      const keys = Object.keys(props);
      if (keys.length === 0) return fc.dictionary(anyText(12), w > 0 ? hostile() : fc.string(), { maxKeys: 3 });
      return fc.record(Object.fromEntries(keys.map((k) => [k, next(props[k]!)])), {
        requiredKeys: keys.filter((k) => required.has(k)), // the optional ones come and go
      });
    }
    default:
      return fc.oneof(anyText(20), fc.integer(), fc.boolean(), fc.constant(null));
  }
}

function stringFor(schema: Schema, pools: Pools): fc.Arbitrary<string> {
  const max = Math.min(schema.maxLength ?? 40, 40);
  switch (schema.format) {
    case 'uuid':
      return fc.oneof(fc.constantFrom(...pools.ids), fc.uuid());
    case 'email':
      return fc.oneof(fc.emailAddress(), fc.constantFrom('ada@example.com', 'ADA@Example.com'));
    case 'date-time':
      return fc
        .date({ min: new Date('1990-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
        .map((d) => d.toISOString());
    case 'uri':
      return fc.oneof(fc.webUrl(), fc.constantFrom('https://example.com/hook', 'http://127.0.0.1/'));
  }
  if (typeof schema.pattern === 'string') {
    try {
      return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length <= (schema.maxLength ?? 200));
    } catch {
      // a pattern fast-check cannot read: plain text below
    }
  }
  return anyText(max).filter((s) => s.length >= (schema.minLength ?? 0));
}

/**
 * Arguments for an object schema, mostly valid with one hostile value: a value that follows the schema,
 * the same with one top-level field replaced from HOSTILE (the case that reaches deepest), or hostile anywhere.
 */
export function argumentsFor(schema: Schema, pools: Pools): fc.Arbitrary<unknown> {
  const valid = fromSchema(schema, pools, 0);
  const keys = Object.keys(schema.properties ?? {});
  const oneHostile =
    keys.length === 0
      ? valid
      : fc
          .tuple(valid, fc.constantFrom(...keys), hostile())
          .map(([v, key, bad]) => Object.assign(Object.create(null), v, { [key]: bad }) as unknown);
  return fc.oneof(
    { weight: 1, arbitrary: valid },
    { weight: 3, arbitrary: oneHostile },
    { weight: 1, arbitrary: fromSchema(schema, pools, 1) },
  );
}
