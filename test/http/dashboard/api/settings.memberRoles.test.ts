// /app/api/members/:id {role}: owners and admins change a member's role through users.changeRole; only an
// owner gives or takes the owner role, the last owner cannot be demoted, and the new role takes effect on
// the member's next request. Another account's member is a 404, a bad role a 400 naming `role`.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { startServer } from '../../../support/server.ts';
import { signedIn } from '../session.ts';

const s = await startServer({ after });

describe('dashboard member roles', () => {
  test('an owner changes a role with PUT or PATCH; the member’s next request has it', async () => {
    const owner = await signedIn(s);
    const editor = await signedIn(s, 'editor', owner.accountId);
    assert.equal((await editor.client.post('/groups', { name: 'Allowed' })).status, 201);
    const put = await owner.client.put(`/members/${editor.userId}`, { role: 'viewer' });
    assert.equal(put.status, 200);
    assert.deepEqual(
      [put.body.data.id, put.body.data.email, put.body.data.role],
      [editor.userId, editor.email, 'viewer'],
    );
    assert.equal((await editor.client.post('/groups', { name: 'Refused' })).status, 403);
    assert.equal((await editor.client.get('/me')).body.data.role, 'viewer');
    const patch = await owner.client.patch(`/members/${editor.userId}`, { role: 'admin' });
    assert.equal(patch.body.data.role, 'admin');
    const roles = (await owner.client.get('/members')).body.data.members.map((m: any) => [m.id, m.role]);
    assert.deepEqual(
      roles.find((r: string[]) => r[0] === editor.userId),
      [editor.userId, 'admin'],
    );
  });

  test('the owner role: only an owner gives or takes it, and the last owner cannot be demoted', async () => {
    const owner = await signedIn(s);
    const admin = await signedIn(s, 'admin', owner.accountId);
    const editor = await signedIn(s, 'editor', owner.accountId);
    const selfDemote = await owner.client.put(`/members/${owner.userId}`, { role: 'admin' });
    assert.equal(selfDemote.status, 409);
    assert.match(selfDemote.body.message ?? selfDemote.body.error, /last owner/);
    const byAdmin = await admin.client.put(`/members/${editor.userId}`, { role: 'owner' });
    assert.equal(byAdmin.status, 400);
    assert.deepEqual(byAdmin.body.data, { role: ['Only an owner can give or take the owner role'] });
    assert.equal((await admin.client.put(`/members/${owner.userId}`, { role: 'viewer' })).status, 400);
    assert.equal((await admin.client.put(`/members/${editor.userId}`, { role: 'viewer' })).status, 200);

    assert.equal((await owner.client.put(`/members/${admin.userId}`, { role: 'owner' })).body.data.role, 'owner');
    assert.equal((await owner.client.put(`/members/${owner.userId}`, { role: 'editor' })).body.data.role, 'editor');
    assert.equal((await admin.client.put(`/members/${admin.userId}`, { role: 'admin' })).status, 409, 'now the last');
  });

  test('bad input → 400 on role, NUL → 400, no right → 403, another account’s member or no member → 404; never 5xx', async () => {
    const owner = await signedIn(s);
    const editor = await signedIn(s, 'editor', owner.accountId);
    const put = (body: unknown, id = editor.userId) => owner.client.put(`/members/${id}`, body);
    const bad = await put({ role: 'superuser' });
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body.data, { role: ['Role must be one of: owner, admin, editor, viewer'] });
    assert.equal((await put({})).status, 400);
    assert.equal((await put({ role: 'viewer\u0000' })).status, 400);
    assert.equal((await put({ role: ['viewer'] })).status, 400);
    assert.equal((await put({ role: 'viewer' }, 'not-a-uuid')).status, 404);
    assert.equal((await put({ role: 'viewer' }, '00000000-0000-4000-8000-000000000000')).status, 404);
    assert.equal((await editor.client.put(`/members/${owner.userId}`, { role: 'viewer' })).status, 403);

    const stranger = await signedIn(s);
    assert.equal((await stranger.client.put(`/members/${editor.userId}`, { role: 'viewer' })).status, 404);
    assert.equal((await owner.client.put(`/members/${stranger.userId}`, { role: 'viewer' })).status, 404);
    const members = (await owner.client.get('/members')).body.data.members;
    assert.equal(members.find((m: any) => m.id === editor.userId).role, 'editor', 'nothing changed');
  });
});
