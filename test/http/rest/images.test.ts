// /api/v1/external/images: upload by multipart "file", judged by content; list; delete; the public URL
// under PUBLIC_URL with a year's cache and nosniff. Hostile files are 4xx and leave no row behind.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fileScope } from '../../support/scope.ts';
import { startServer } from '../../support/server.ts';
import { gif, htmlPretendingToBePng, jpeg, png, pngClaiming, svg } from '../../support/images.ts';

const s = await startServer(fileScope, { PUBLIC_URL: 'https://mail.example.test' });

async function upload(key: string, bytes: Uint8Array, filename = 'photo.png', type = 'image/png') {
  const form = new FormData();
  form.append('file', new Blob([bytes], { type }), filename);
  const res = await fetch(`${s.url}/api/v1/external/images`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as any };
}

const imageRows = async (accountId: string) =>
  Number(
    (
      await s.db
        .selectFrom('images')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('account_id', '=', accountId)
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('REST images', () => {
  test('upload → 201 with url under PUBLIC_URL; served publicly with cache and nosniff; listed; deleted', async () => {
    const { key, api, accountId } = await s.restAccount();
    const up = await upload(key, png());
    assert.equal(up.status, 201, JSON.stringify(up.body));
    const img = up.body.data;
    assert.equal(img.content_type, 'image/png');
    assert.deepEqual([img.width, img.height, img.size], [1, 1, png().length]);
    assert.equal(img.url, `https://mail.example.test/images/${img.id}.png`);

    const served = await fetch(`${s.url}/images/${img.id}.png`);
    assert.equal(served.status, 200);
    assert.equal(served.headers.get('content-type'), 'image/png');
    assert.equal(served.headers.get('x-content-type-options'), 'nosniff');
    assert.match(served.headers.get('cache-control')!, /max-age=31536000/);
    assert.deepEqual(Buffer.from(await served.arrayBuffer()), png());
    assert.equal((await fetch(`${s.url}/images/${img.id}.gif`)).status, 404, 'one URL, one type');

    // a JPEG sent as "x.png" with a PNG type is still a JPEG: the bytes decide
    const j = await upload(key, jpeg(), 'x.png', 'image/png');
    assert.equal(j.body.data.content_type, 'image/jpeg');
    assert.match(j.body.data.url, /\.jpg$/);
    assert.equal((await upload(key, gif(), 'a.gif', 'image/gif')).status, 201);

    const list = await api.get('/images?per_page=2');
    assert.equal(list.status, 200);
    assert.equal(list.body.data.images.length, 2);
    assert.equal(list.body.data.pagination.total_count, 3);
    assert.ok(!('data' in list.body.data.images[0]), 'the bytes are not in the list');

    const other = await s.restAccount();
    assert.equal((await other.api.delete(`/images/${img.id}`)).status, 404);
    assert.equal((await api.delete(`/images/${img.id}`)).status, 200);
    assert.equal((await fetch(`${s.url}/images/${img.id}.png`)).status, 404);
    assert.equal(await imageRows(accountId), 2);
  });

  test('SVG, HTML named .png, a decompression bomb, a 50 MB file and a missing part: 4xx, nothing stored', async () => {
    const { key, accountId } = await s.restAccount();
    for (const [bytes, name, status, pattern] of [
      [svg(), 'logo.svg', 400, /Only PNG, JPEG, GIF and WebP/],
      [htmlPretendingToBePng(), 'photo.png', 400, /Only PNG, JPEG, GIF and WebP/],
      [pngClaiming(50_000, 50_000), 'bomb.png', 400, /pixels/],
      [Buffer.alloc(50 * 1024 * 1024, 0x89), 'huge.png', 413, /larger than 5 MB/],
    ] as const) {
      const res = await upload(key, bytes, name);
      assert.equal(res.status, status, `${name}: ${JSON.stringify(res.body)}`);
      assert.match(JSON.stringify(res.body), pattern);
    }
    const form = new FormData();
    form.append('other', 'x');
    const none = await fetch(`${s.url}/api/v1/external/images`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: form,
    });
    assert.equal(none.status, 400);
    const json = await fetch(`${s.url}/api/v1/external/images`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(json.status, 400);
    assert.equal(await imageRows(accountId), 0);
    const reader = await s.restAccount({ scopes: ['campaigns:read'] });
    assert.equal((await upload(reader.key, png())).status, 403);
  });
});
