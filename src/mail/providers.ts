// Which mail provider a domain or an MX host belongs to, from a plain table of the big providers: the
// send workers group recipients by provider (domain/delivery/providers.ts adds the MX lookup) and the
// reports name the provider of each domain. Synchronous, no network.

/** The big providers by the domains their users' addresses have. */
const KNOWN: Record<string, string> = {};
const known = (provider: string, domains: string[]) => domains.forEach((d) => (KNOWN[d] = provider));
known('google', ['gmail.com', 'googlemail.com']);
known('microsoft', [
  'outlook.com',
  'hotmail.com',
  'hotmail.co.uk',
  'hotmail.fr',
  'hotmail.de',
  'hotmail.it',
  'hotmail.es',
  'live.com',
  'live.co.uk',
  'live.fr',
  'live.de',
  'live.nl',
  'msn.com',
  'outlook.fr',
  'outlook.de',
]);
known('yahoo', [
  'yahoo.com',
  'yahoo.co.uk',
  'yahoo.fr',
  'yahoo.de',
  'yahoo.it',
  'yahoo.es',
  'yahoo.co.jp',
  'yahoo.com.br',
  'ymail.com',
  'rocketmail.com',
  'aol.com',
  'aim.com',
]);
known('apple', ['icloud.com', 'me.com', 'mac.com']);
known('gmx', ['gmx.de', 'gmx.net', 'gmx.com', 'web.de']);
known('yandex', ['yandex.ru', 'yandex.com', 'ya.ru']);
known('mailru', ['mail.ru', 'bk.ru', 'inbox.ru', 'list.ru']);
known('proton', ['proton.me', 'protonmail.com', 'pm.me']);
known('zoho', ['zoho.com', 'zohomail.com']);

// other families of domains: hotmail.*, live.*, yahoo.* in any country
const FAMILIES: [RegExp, string][] = [
  [/^(hotmail|live|outlook)\.[a-z.]+$/, 'microsoft'],
  [/^yahoo\.[a-z.]+$/, 'yahoo'],
];

/** The MX hosts of the big providers, by the domain they end in (a Workspace or Microsoft 365 domain). */
const MX_HOSTS: [string, string][] = [
  ['google.com', 'google'],
  ['googlemail.com', 'google'],
  ['outlook.com', 'microsoft'],
  ['hotmail.com', 'microsoft'],
  ['yahoodns.net', 'yahoo'],
  ['icloud.com', 'apple'],
  ['me.com', 'apple'],
  ['gmx.net', 'gmx'],
  ['web.de', 'gmx'],
  ['yandex.net', 'yandex'],
  ['yandex.ru', 'yandex'],
  ['mail.ru', 'mailru'],
  ['protonmail.ch', 'proton'],
  ['zoho.com', 'zoho'],
  ['zoho.eu', 'zoho'],
];

// second-level labels under which a country's registrable names sit (example.co.uk, not co.uk)
const SECOND_LEVEL = new Set(['co', 'com', 'net', 'org', 'ac', 'gov', 'edu', 'ne', 'or', 'gob']);

/** The domain part of an address, lower-cased (the whole string when it has no @). */
export function domainOf(email: string): string {
  const at = email.lastIndexOf('@');
  return (at < 0 ? email : email.slice(at + 1)).trim().toLowerCase().replace(/\.$/, '');
}

/** The provider of a domain when it is one of the big providers' own domains; undefined otherwise. Synchronous. */
export function knownProviderOf(domain: string): string | undefined {
  const d = domain.trim().toLowerCase().replace(/\.$/, '');
  const hit = KNOWN[d];
  if (hit) return hit;
  for (const [re, provider] of FAMILIES) if (re.test(d)) return provider;
  return undefined;
}

/** The provider behind an MX host: a big provider's key, or the host's registrable domain. */
export function providerOfMxHost(host: string): string {
  const h = host.trim().toLowerCase().replace(/\.$/, '');
  for (const [suffix, provider] of MX_HOSTS) if (h === suffix || h.endsWith(`.${suffix}`)) return provider;
  const labels = h.split('.');
  if (labels.length <= 2) return h;
  const n = labels.at(-1)!.length === 2 && SECOND_LEVEL.has(labels.at(-2)!) ? 3 : 2;
  return labels.slice(-n).join('.');
}
