// A subscriber's time zone (for local-time delivery) through REST and the dashboard API: set on create and
// update, refused when it is no IANA zone, and kept out of the spec's subscriber responses (their field
// sets stay exactly the spec's); the dashboard's subscriber shows it.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { startServer } from '../../support/server.ts';
import { signedIn } from '../dashboard/session.ts';

const s = await startServer({ after }, {});

test('Subscriber time zone › set through REST create/update, 400 for a bad zone, absent from the spec responses, shown to the dashboard', async () => {
  const { api, accountId } = await s.restAccount();
  const created = await api.post('/subscribers', { email: 'tz@zones.test', time_zone: 'Asia/Tokyo' });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.equal('time_zone' in created.body.data, false, 'the spec response keeps its fields');
  const id = created.body.data.id;
  const stored = () =>
    s.db.selectFrom('subscribers').select('time_zone').where('id', '=', id).executeTakeFirstOrThrow();
  assert.equal((await stored()).time_zone, 'Asia/Tokyo');
  for (const bad of ['Mars/Olympus', 'x'.repeat(100), 42, '']) {
    const res = await api.put(`/subscribers/${id}`, { time_zone: bad });
    assert.equal(res.status, 400, `${JSON.stringify(bad)} → ${res.status}`);
  }
  assert.equal((await stored()).time_zone, 'Asia/Tokyo', 'nothing stored by a refused update');
  const updated = await api.put(`/subscribers/${id}`, { time_zone: 'Europe/Berlin' });
  assert.equal(updated.status, 200);
  assert.equal('time_zone' in updated.body.data, false);
  assert.equal('time_zone' in (await api.get(`/subscribers/${id}`)).body.data, false);
  assert.equal((await stored()).time_zone, 'Europe/Berlin');
  assert.equal((await api.put(`/subscribers/${id}`, { time_zone: null })).status, 200, 'null: the account’s zone');
  assert.equal((await stored()).time_zone, null);
  await api.put(`/subscribers/${id}`, { time_zone: 'America/New_York' });
  const { client } = await signedIn(s, 'viewer', accountId);
  assert.equal((await client.get(`/subscribers/${id}`)).body.data.time_zone, 'America/New_York');
});
