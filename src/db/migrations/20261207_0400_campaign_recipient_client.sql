-- The email client and device a recipient first opened or clicked from, read from the user agent of that
-- open or click (feedback/mailClients.ts): "Apple Mail" / "mobile", "Web browser: Chrome" / "desktop". The
-- user agent itself is never stored. Set once, by the first open or click of a person (a privacy proxy's
-- pixel load sets nothing), in the statement that counts it, so tracking costs no extra statement; the
-- report groups a campaign's rows by them.
alter table campaign_recipients add column client text, add column device text;

-- the report's breakdown reads only the rows a person opened or clicked
create index campaign_recipients_client on campaign_recipients (campaign_id, client, device) where client is not null;
