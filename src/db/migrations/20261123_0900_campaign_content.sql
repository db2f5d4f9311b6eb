-- What the author wrote: MJML is compiled to content_html on every save, so sending, tracking and the
-- REST/MCP faces keep reading content_html only; content_source is kept for the editor.
alter table campaigns
  add column content_format text not null default 'html' check (content_format in ('html', 'mjml')),
  add column content_source text;
update campaigns set content_source = content_html where content_source is null;

-- the campaign report reads opens and clicks of one campaign from the event log (per link, per hour)
create index events_campaign_engagement on events ((data ->> 'campaign_id'), created_at)
  where type in ('email.opened', 'email.clicked');
