-- Each form's double opt-in confirmation mail can be written by its author: a subject and content in
-- HTML or a block document (confirmation_source), rendered on save to confirmation_html. All null: the
-- built-in confirmation mail.
alter table forms
  add column confirmation_subject text,
  add column confirmation_format text not null default 'html' check (confirmation_format in ('html', 'blocks')),
  add column confirmation_source text,
  add column confirmation_html text;
