-- The event log is keyed by its seq, which every reader orders and pages by; the uuid id stays the event's
-- public identity (webhook payloads, deliveries, automation runs) but loses its own unique index. Nothing
-- looks an event up by id, ids are random (122 bits, from gen_random_uuid or Node's randomUUID), and that
-- index cost every written event an insert at a random place in a btree: dropping it made a PGlite import
-- of 100,000 rows ~1 s (9 %) faster, and it is one random index write less per event on PostgreSQL too.
-- The seq's unique constraint becomes the primary key (one index build, seconds at millions of events).
alter table events drop constraint events_pkey, drop constraint events_seq_key, add primary key (seq);
