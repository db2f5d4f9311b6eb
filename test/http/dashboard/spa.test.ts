// The dashboard's shell: the page at / with its strict policy, and the icon every browser asks for.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileScope } from '../../support/scope.ts';
import { startServer } from '../../support/server.ts';

const s = await startServer(fileScope);

test('/favicon.ico answers an icon (ICO with PNG images), cached, not a 404', async () => {
  const res = await fetch(`${s.url}/favicon.ico`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'image/x-icon');
  assert.match(res.headers.get('cache-control') ?? '', /max-age=\d+/);
  const bytes = Buffer.from(await res.arrayBuffer());
  assert.deepEqual([...bytes.subarray(0, 4)], [0, 0, 1, 0], 'ICO header: reserved 0, type 1 (icon)');
  assert.ok(bytes.readUInt16LE(4) >= 1, 'at least one image');
});

test('the dashboard page carries its content security policy and refuses framing', async () => {
  const res = await fetch(`${s.url}/app`);
  assert.match(res.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
  assert.equal(res.headers.get('x-frame-options'), 'DENY');
});
