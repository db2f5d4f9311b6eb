-- Every account has an owner and every API key a user: test-auth reports the key's user as a UUID (spec
-- "Test authentication"). Accounts made before without an owner email get their service owner, as
-- accounts.serviceOwner makes it today: idp_user_id service|<account id>, email
-- owner+<account id>@mailgrove.invalid, no password. Keys without a user go to their account's first
-- owner, then api_keys.user_id is required; a user who holds keys can no longer be deleted (the old
-- "on delete set null" would now fail anyway), so the foreign key says so.
insert into users (idp_user_id, email)
select 'service|' || a.id, 'owner+' || a.id || '@mailgrove.invalid'
from accounts a
where not exists (select 1 from memberships m where m.account_id = a.id and m.role = 'owner')
on conflict do nothing;

insert into memberships (account_id, user_id, role)
select a.id, u.id, 'owner'
from accounts a
join users u on u.idp_user_id = 'service|' || a.id
where not exists (select 1 from memberships m where m.account_id = a.id and m.role = 'owner')
on conflict do nothing;

update api_keys k
set user_id = (
  select m.user_id from memberships m
  where m.account_id = k.account_id and m.role = 'owner'
  order by m.created_at, m.user_id
  limit 1
)
where k.user_id is null;

alter table api_keys
  alter column user_id set not null,
  drop constraint api_keys_user_id_fkey,
  add constraint api_keys_user_id_fkey foreign key (user_id) references users (id);
