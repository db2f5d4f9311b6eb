// How a form looks and behaves on its public faces (the hosted page, the embed, the pop-up): heading,
// description, button text, colours, the consent checkbox, the two messages of double opt-in, and how
// the pop-up opens. One validated document (forms.design); every text is escaped wherever it is shown,
// colours are #rrggbb only, so nothing in it can become markup, style or script.
import { z } from 'zod';
import { storableString } from '../storable.ts';

const text = (name: string, max: number) =>
  storableString().trim().min(1, `${name} must not be empty`).max(max, `${name} must be at most ${max} characters`);

const Colour = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^#[0-9a-f]{6}$/, 'Colours are written #rrggbb, e.g. #166534');

export const POPUP_STYLES = ['popup', 'slide_in'] as const;
export const POPUP_TRIGGERS = ['delay', 'scroll', 'exit'] as const;

export const FormDesign = z
  .object({
    heading: text('heading', 200),
    description: text('description', 2000),
    button_text: text('button_text', 60),
    colors: z.object({ accent: Colour, background: Colour, text: Colour }).partial().strict(),
    /** a checkbox under the fields; its text is kept on the subscriber when ticked */
    consent: z
      .object({
        text: text('consent.text', 1000),
        required: z.boolean({ error: 'consent.required must be true or false' }).default(true),
      })
      .strict()
      .nullable(),
    /** shown right after a double opt-in submission */
    check_inbox_message: text('check_inbox_message', 2000),
    /** shown when the confirmation link is opened (double opt-in); success_message is shown without it */
    confirmed_message: text('confirmed_message', 2000),
    popup: z
      .object({
        style: z.enum(POPUP_STYLES, { error: 'popup.style must be one of: popup, slide_in' }).default('popup'),
        trigger: z
          .enum(POPUP_TRIGGERS, { error: 'popup.trigger must be one of: delay, scroll, exit' })
          .default('delay'),
        delay_seconds: z.number().int().min(0).max(600, 'popup.delay_seconds must be 0 to 600').default(5),
        scroll_percent: z.number().int().min(1).max(100, 'popup.scroll_percent must be 1 to 100').default(50),
      })
      .strict(),
  })
  .partial()
  .strict();
export type FormDesign = z.output<typeof FormDesign>;

export const DEFAULT_BUTTON = 'Subscribe';
export const DEFAULT_CHECK_INBOX =
  'Almost done: we have sent you an email. Please open the link in it to confirm your subscription.';
export const DEFAULT_CONFIRMED = 'Your subscription is confirmed. Thank you!';
export const DEFAULT_COLORS = { accent: '#166534', background: '#ffffff', text: '#1f2933' } as const;
export const DEFAULT_POPUP = { style: 'popup', trigger: 'delay', delay_seconds: 5, scroll_percent: 50 } as const;

/** The design with every default filled in, as the public pages use it. */
export function resolved(design: FormDesign | null | undefined, formName: string) {
  const d = design ?? {};
  return {
    heading: d.heading ?? formName,
    description: d.description ?? null,
    button_text: d.button_text ?? DEFAULT_BUTTON,
    colors: { ...DEFAULT_COLORS, ...d.colors },
    consent: d.consent ?? null,
    check_inbox_message: d.check_inbox_message ?? DEFAULT_CHECK_INBOX,
    confirmed_message: d.confirmed_message ?? null,
    popup: { ...DEFAULT_POPUP, ...d.popup },
  };
}
export type ResolvedDesign = ReturnType<typeof resolved>;

// ---- the readable address /f/<slug> ----

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** words the public routes use under /f/ */
const RESERVED = new Set(['confirm', 'assets', 'embed', 'form']);

export const Slug = z
  .string({ error: 'slug must be text' })
  .trim()
  .toLowerCase()
  .min(2, 'slug must be 2 to 64 characters')
  .max(64, 'slug must be 2 to 64 characters')
  .regex(/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/, 'slug may hold a-z, 0-9 and inner hyphens, e.g. spring-newsletter')
  .refine((s) => !UUID.test(s) && !RESERVED.has(s), 'This slug is reserved; choose another')
  .nullable();

/** True for text that may be a slug: the public route looks it up only then. */
export function looksLikeSlug(value: string): boolean {
  return Slug.safeParse(value).success;
}
