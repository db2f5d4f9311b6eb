// Which PUBLIC_URLs put links to an unreachable address in mail.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { linksArePrivate } from '../../../src/domain/sending/publicLinks.ts';

test('linksArePrivate', () => {
  for (const url of [
    'http://127.0.0.1:3000',
    'http://10.1.2.3',
    'http://[::1]:80',
    'http://localhost:3000',
    'https://mailgrove.local',
    'https://box',
  ])
    assert.equal(linksArePrivate({ publicUrl: url }), true, url);
  for (const url of ['https://mail.mailgrove.org', 'http://93.184.216.34'])
    assert.equal(linksArePrivate({ publicUrl: url }), false, url);
});
