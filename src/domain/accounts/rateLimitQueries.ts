// SQL of the per-key request counts shared by every instance on one PostgreSQL (table rate_limits:
// key, points used, end of the window in epoch milliseconds). Run through the handle's raw executeGateSql, so
// that counting a request does not tick the change clock (which would empty the read cache on every
// request), as a named statement: it runs on every request, and is planned once per connection.
import type { DbHandle } from '../../db/client.ts';

/**
 * Adds `points` to the key's count in its current window, or starts a new window of `durationMs` when the
 * last one has ended (by the database's clock, which every instance shares). One statement, whatever the
 * points: the count after it, the window's end and the database's now, in epoch milliseconds. Given an API
 * key's id, it also says whether that key is revoked: the statement runs on every request anyway, and an
 * instance that serves the key from its cache learns of a revocation made elsewhere no later than this
 * (a notice from the database can arrive after the next request).
 */
export async function addPoints(
  handle: Pick<DbHandle, 'executeGateSql'>,
  key: string,
  points: number,
  durationMs: number,
  apiKeyId: string | null = null,
): Promise<{ points: number; expire: number; now: number; revoked: boolean }> {
  const { rows } = await handle.executeGateSql(
    `with now as (select (extract(epoch from clock_timestamp()) * 1000)::bigint as ms)
     insert into rate_limits as r (key, points, expire) select $1, $2, ms + $3 from now
     on conflict (key) do update set
       points = case when r.expire is null or r.expire <= (select ms from now) then excluded.points
                     else r.points + excluded.points end,
       expire = case when r.expire is null or r.expire <= (select ms from now) then excluded.expire
                     else r.expire end
     returning points, expire, (select ms from now) as now,
       (select k.revoked_at is not null from api_keys k where k.id = $4::uuid) as revoked`,
    [key, points, durationMs, apiKeyId],
    'mailgrove_rate_limit_add_key',
  );
  const row = rows[0] as {
    points: number | string;
    expire: number | string;
    now: number | string;
    revoked: boolean | null;
  };
  return {
    points: Number(row.points),
    expire: Number(row.expire),
    now: Number(row.now),
    revoked: row.revoked === true,
  };
}
