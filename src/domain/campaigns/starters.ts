// The starter templates the editor offers: MJML with Liquid personalisation, each a file in starters/
// so it can be edited (and checked in a browser at phone width) as MJML. Columns stack below 480 px.
import { readFileSync } from 'node:fs';

const STARTERS = [
  { id: 'newsletter', name: 'Newsletter', description: 'A greeting, two stories with a button and a link, a footer.' },
  { id: 'announcement', name: 'Announcement', description: 'One headline, one paragraph and one large button.' },
  { id: 'digest', name: 'Digest', description: 'A list of highlights, each with a thumbnail and one line.' },
] as const;

export type StarterId = (typeof STARTERS)[number]['id'];

export interface Starter {
  id: StarterId;
  name: string;
  description: string;
  content_format: 'mjml';
  content_source: string;
}

let loaded: Starter[] | undefined;

export function starters(): Starter[] {
  loaded ??= STARTERS.map((s) => ({
    ...s,
    content_format: 'mjml' as const,
    content_source: readFileSync(new URL(`./starters/${s.id}.mjml`, import.meta.url), 'utf8'),
  }));
  return loaded;
}
