-- A replay is a new delivery of an event already delivered (or not) to the same webhook: same payload, its
-- own attempts and status. It points at the delivery it repeats, so the one-per-(webhook, event) rule that
-- keeps a second fan-out from queueing an event twice now holds for fan-out rows only.
alter table webhook_deliveries add column replay_of uuid;
alter table webhook_deliveries drop constraint webhook_deliveries_webhook_id_event_id_key;
create unique index webhook_deliveries_event on webhook_deliveries (webhook_id, event_id) where replay_of is null;
