// /app/api/invitations and the public /invitation/*: nobody becomes a member without a way to sign in,
// an invitation's link is single use, replaced by a resend, gone when revoked, and refused cleanly when
// it is wrong, used or expired (4xx with words, never a 500). An address that has a password must give it.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { startServer } from '../../../support/server.ts';
import { dashboardClient, mailedToken, signedIn } from '../session.ts';

const s = await startServer({ after });

const linkTo = (email: string, n = 1) => mailedToken(s, email, n);

describe('invitations', () => {
  test('a member is not added without a password or an invitation; an invitation is', async () => {
    const owner = await signedIn(s);
    const bare = await owner.client.post('/members', { email: 'nopass@example.com', role: 'viewer' });
    assert.equal(bare.status, 400);
    assert.match(bare.body.data.password[0], /invite the member by email/);
    const invited = await owner.client.post('/invitations', { email: 'Invited@Example.com', role: 'editor' });
    assert.equal(invited.status, 201);
    assert.equal(invited.body.data.sent, true);
    assert.deepEqual(
      (await owner.client.get('/invitations')).body.data.invitations.map((i: any) => i.email),
      ['Invited@Example.com'],
    );
    // again: the same invitation with a new link; the first link stops working
    const first = await linkTo('invited@example.com');
    const filed = await s.db
      .selectFrom('outbox')
      .select('account_id')
      .where('to_addr', 'ilike', 'invited@example.com')
      .execute();
    assert.deepEqual(filed, [{ account_id: null }], "in no account's outbox: its viewers must not follow the link");
    const again = await owner.client.post('/invitations', { email: 'invited@example.com', role: 'viewer' });
    assert.equal(again.body.data.id, invited.body.data.id);
    const latest = await linkTo('invited@example.com', 2);
    const c = dashboardClient(s.url);
    assert.equal((await c.post('/invitation/preview', { token: first })).status, 404);
    const preview = await c.post('/invitation/preview', { token: latest });
    assert.equal(preview.status, 200);
    assert.equal(preview.body.data.role, 'viewer');
    assert.equal(preview.body.data.has_password, false);

    const accepted = await c.post('/invitation/accept', { token: latest, password: 'a long password' });
    assert.equal(accepted.status, 200);
    assert.equal(accepted.body.data.signed_in, true);
    assert.equal((await c.get('/me')).body.data.role, 'viewer');
    const reused = await dashboardClient(s.url).post('/invitation/accept', {
      token: latest,
      password: 'a long password',
    });
    assert.equal(reused.status, 404);
    assert.match(reused.body.error, /not valid/);
    assert.deepEqual((await owner.client.get('/invitations')).body.data.invitations, []);
    assert.equal(
      (await owner.client.post('/invitations', { email: 'invited@example.com', role: 'viewer' })).status,
      409,
    );
  });

  test('wrong, expired and revoked links are 4xx; an address with a password gives it', async () => {
    const owner = await signedIn(s);
    const other = await signedIn(s, 'editor', undefined, { withPassword: true });
    const c = dashboardClient(s.url);
    for (const body of [{}, { token: '' }, { token: 'x'.repeat(500) }, { token: 'nope' }, { token: 42 }])
      assert.ok([400, 404].includes((await c.post('/invitation/preview', body)).status), JSON.stringify(body));
    const invited = await owner.client.post('/invitations', { email: other.email, role: 'admin' });
    const token = await linkTo(other.email);
    const wrong = await c.post('/invitation/accept', { token, password: 'not the password' });
    assert.equal(wrong.status, 400);
    assert.match(wrong.body.data.password[0], /already has a password/);
    await s.db
      .updateTable('invitations')
      .set({ expires_at: new Date(Date.now() - 1) })
      .where('id', '=', invited.body.data.id)
      .execute();
    const expired = await c.post('/invitation/accept', { token, password: other.password });
    assert.equal(expired.status, 409);
    assert.match(expired.body.error, /expired/);
    const resent = await owner.client.post(`/invitations/${invited.body.data.id}/resend`);
    assert.equal(resent.status, 200);
    const fresh = await linkTo(other.email, 2);
    assert.equal((await c.post('/invitation/preview', { token: fresh })).body.data.has_password, true);
    assert.equal((await owner.client.delete(`/invitations/${invited.body.data.id}`)).status, 200);
    assert.equal((await c.post('/invitation/accept', { token: fresh, password: other.password })).status, 404);
    assert.equal((await owner.client.delete(`/invitations/${invited.body.data.id}`)).status, 404);
    // another account's owner sees and touches none of them
    const stranger = await signedIn(s);
    assert.equal((await stranger.client.post(`/invitations/${invited.body.data.id}/resend`)).status, 404);
    assert.equal((await other.client.get('/invitations')).status, 403, 'editors do not manage the team');
  });
});
