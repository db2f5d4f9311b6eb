// The starter block documents the template gallery offers: each a complete email an author edits rather
// than writes — a coloured header band, a personalised greeting with a fallback, one clear call to
// action and the footer block (the account's name and postal address, the unsubscribe link). No
// images: a starter must look finished before the author has uploaded anything, and must not load
// pictures from someone else's server.
import type { TemplateKind } from '../../db/schema/content.ts';
import type { Block, BlockDocument, LeafBlock } from './blocks/schema.ts';

export interface Starter {
  /** a fixed UUID, the same on every installation: template_id takes it (and `key`, for older clients) */
  id: string;
  /** the starter's word ("newsletter"), its id before starters had UUIDs */
  key: string;
  name: string;
  description: string;
  document: BlockDocument;
  /** offered only for this kind of mail (the confirmation starter needs {{ confirm_url }}); else for all */
  only?: TemplateKind;
}

const GREETING = 'Hi {{ subscriber.first_name | default: "there" }},';
const STYLE: BlockDocument['style'] = {
  width: 600,
  background: '#f4f4f5',
  contentBackground: '#ffffff',
  fontFamily: 'Helvetica, Arial, sans-serif',
  textColor: '#1f2937',
  linkColor: '#2563eb',
};

let seq = 0;
const id = () => `s${++seq}`;
const band = (text: string, background: string, color = '#ffffff', level: 1 | 2 = 1): LeafBlock => ({
  id: id(),
  type: 'heading',
  text,
  level,
  style: { background, color, align: 'center', padding: [36, 24, 36, 24] },
});
const heading = (text: string, level: 1 | 2 | 3 = 2, align?: 'left' | 'center'): LeafBlock => ({
  id: id(),
  type: 'heading',
  text,
  level,
  ...(align && { style: { align } }),
});
const text = (html: string, align?: 'left' | 'center'): LeafBlock => ({
  id: id(),
  type: 'text',
  html,
  ...(align && { style: { align } }),
});
const button = (label: string, href: string, color = '#2563eb'): LeafBlock => ({
  id: id(),
  type: 'button',
  text: label,
  href,
  color,
});
const divider = (): LeafBlock => ({ id: id(), type: 'divider', color: '#e5e7eb', thickness: 1 });
const spacer = (height = 16): LeafBlock => ({ id: id(), type: 'spacer', height });
const footer = (): LeafBlock => ({ id: id(), type: 'footer', style: { background: '#f4f4f5' } });
const social = (): LeafBlock => ({
  id: id(),
  type: 'social',
  links: [
    { network: 'website', url: 'https://example.com' },
    { network: 'instagram', url: 'https://instagram.com/' },
    { network: 'linkedin', url: 'https://linkedin.com/' },
  ],
});
const doc = (blocks: Block[], style: Partial<BlockDocument['style']> = {}): BlockDocument => ({
  version: 1,
  style: { ...STYLE, ...style },
  blocks,
});

const STARTERS: Starter[] = [
  {
    id: '00000000-0000-4000-a000-000000000001',
    key: 'newsletter',
    name: 'Newsletter',
    description: 'A header, a greeting, a lead story with a button, two stories side by side, a footer.',
    document: doc([
      band('The Monthly Letter', '#1e3a8a'),
      text(`<p>${GREETING}</p><p>Here is what happened this month, and what is coming next.</p>`),
      heading('Our lead story'),
      text(
        '<p>Tell the story that matters most this month in two or three sentences. Say why it matters to the reader, then invite them to read the rest.</p>',
      ),
      button('Read the full story', 'https://example.com/story', '#1e3a8a'),
      divider(),
      {
        id: id(),
        type: 'columns',
        columns: [
          [
            heading('Second story', 3),
            text(
              '<p>A short summary of another piece worth reading.</p><p><a href="https://example.com/2">Read more →</a></p>',
            ),
          ],
          [
            heading('Third story', 3),
            text(
              '<p>One more thing your readers should know about.</p><p><a href="https://example.com/3">Read more →</a></p>',
            ),
          ],
        ],
      },
      divider(),
      text('<p>Thanks for reading — reply to this email any time, we read every answer.</p>'),
      social(),
      footer(),
    ]),
  },
  {
    id: '00000000-0000-4000-a000-000000000002',
    key: 'announcement',
    name: 'Announcement',
    description: 'One big headline, one paragraph and one large button.',
    document: doc([
      spacer(24),
      heading('Something new is here', 1, 'center'),
      text(
        `<p style="text-align:center">${GREETING} we have been working on this for months and it is finally ready. Here is what it means for you.</p>`,
        'center',
      ),
      button('See what is new', 'https://example.com/new', '#7c3aed'),
      spacer(24),
      footer(),
    ]),
  },
  {
    id: '00000000-0000-4000-a000-000000000003',
    key: 'promotion',
    name: 'Promotion',
    description: 'A bold offer band, the code, three reasons in columns, a button.',
    document: doc([
      band('20% off everything this week', '#b91c1c'),
      text(`<p style="text-align:center">${GREETING} use the code below at checkout until Sunday.</p>`, 'center'),
      {
        id: id(),
        type: 'heading',
        text: 'SPRING20',
        level: 2,
        style: { align: 'center', background: '#fef2f2', color: '#991b1b', padding: [16, 24, 16, 24] },
      },
      {
        id: id(),
        type: 'columns',
        columns: [
          [
            heading('Free shipping', 3, 'center'),
            text('<p style="text-align:center">On every order, no minimum.</p>', 'center'),
          ],
          [
            heading('Easy returns', 3, 'center'),
            text('<p style="text-align:center">30 days, no questions asked.</p>', 'center'),
          ],
          [
            heading('Gift wrap', 3, 'center'),
            text('<p style="text-align:center">Ask for it at checkout.</p>', 'center'),
          ],
        ],
      },
      button('Shop now', 'https://example.com/shop', '#b91c1c'),
      footer(),
    ]),
  },
  {
    id: '00000000-0000-4000-a000-000000000004',
    key: 'welcome',
    name: 'Welcome',
    description: 'A warm hello for new subscribers: what to expect and where to start.',
    document: doc([
      band('Welcome aboard', '#047857'),
      text(
        `<p>${GREETING}</p><p>Thank you for subscribing. Here is what you can expect from us:</p>` +
          '<ul><li>One email a month, never more</li><li>Early access to new things</li><li>No spam, ever — unsubscribe in one click</li></ul>',
      ),
      heading('Where to start', 3),
      text('<p>Most people begin with our guide. It takes five minutes.</p>'),
      button('Read the guide', 'https://example.com/start', '#047857'),
      social(),
      footer(),
    ]),
  },
  {
    id: '00000000-0000-4000-a000-000000000005',
    key: 'event',
    name: 'Event invitation',
    description: 'The event, when and where side by side, and an RSVP button.',
    document: doc([
      band('You are invited', '#0f766e'),
      heading('Our spring open evening', 2, 'center'),
      text(
        `<p style="text-align:center">${GREETING} join us for an evening of talks, food and good company.</p>`,
        'center',
      ),
      {
        id: id(),
        type: 'columns',
        columns: [
          [
            heading('When', 3, 'center'),
            text('<p style="text-align:center">Thursday 14 May<br>18:00 – 21:00</p>', 'center'),
          ],
          [
            heading('Where', 3, 'center'),
            text('<p style="text-align:center">The Old Library<br>12 Market Street</p>', 'center'),
          ],
        ],
      },
      button('Reserve my seat', 'https://example.com/rsvp', '#0f766e'),
      text('<p style="text-align:center">Places are limited — please reply by 7 May.</p>', 'center'),
      footer(),
    ]),
  },
  {
    id: '00000000-0000-4000-a000-000000000006',
    key: 'letter',
    name: 'Plain letter',
    description: 'A personal note: no header, no button, just words and a signature.',
    document: doc(
      [
        spacer(16),
        text(
          `<p>${GREETING}</p><p>Write to your readers the way you would write to a friend: one idea, in your own words.</p>` +
            '<p>Short paragraphs read best on a phone. A question at the end invites a reply.</p><p>All the best,<br><strong>Your name</strong></p>',
        ),
        spacer(8),
        footer(),
      ],
      { background: '#ffffff', fontFamily: 'Georgia, Times New Roman, serif' },
    ),
  },
  {
    id: '00000000-0000-4000-a000-000000000007',
    key: 'confirmation',
    name: 'Confirm button',
    only: 'confirmation',
    description: 'The double opt-in mail: a greeting, one big confirmation button and the link spelled out.',
    // no footer block: nobody is subscribed yet, so there is nothing to unsubscribe from
    document: doc([
      band('Confirm your subscription', '#166534', '#ffffff', 2),
      text(`<p>${GREETING}</p><p>Please confirm that you want to hear from us. One click and you are in.</p>`),
      button('Confirm my subscription', '{{ confirm_url }}', '#166534'),
      text(
        '<p style="font-size:14px;color:#5f6b7a">Or paste this link into your browser: {{ confirm_url }}</p>' +
          '<p style="font-size:14px;color:#5f6b7a">If you did not sign up, ignore this message: you will not be subscribed.</p>',
      ),
    ]),
  },
];

/** Every starter; with a kind, those offered for that kind of mail. */
export function starters(kind?: TemplateKind): readonly Starter[] {
  return kind ? STARTERS.filter((s) => !s.only || s.only === kind) : STARTERS.filter((s) => !s.only);
}

/** Any starter by its UUID or its key, whatever it is offered for. */
export function starterById(id: string): Starter | undefined {
  const want = id.toLowerCase();
  return STARTERS.find((s) => s.id === want || s.key === want);
}
