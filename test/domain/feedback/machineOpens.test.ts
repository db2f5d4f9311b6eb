// The one rule for privacy proxies' pixel loads: Apple's networks (IPv4 and IPv6, IPv4-mapped too) and the
// bare agent of Apple's prefetch are machines; anything else, and input that is not an address, is not.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isMachineOpen } from '../../../src/domain/feedback/machineOpens.ts';

const SAFARI =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148';

test('machine opens: Apple addresses or the bare "Mozilla/5.0" agent; people: everything else', () => {
  for (const ip of ['17.0.0.1', '17.58.63.4', '17.255.255.255', '::ffff:17.1.2.3', '2620:149:a0c::1', '2a01:b740::7'])
    assert.equal(isMachineOpen({ ip, userAgent: SAFARI }), true, ip);
  assert.equal(isMachineOpen({ ip: '127.0.0.1', userAgent: 'Mozilla/5.0' }), true);
  assert.equal(isMachineOpen({ userAgent: ' Mozilla/5.0 ' }), true);
  for (const ip of ['127.0.0.1', '16.255.255.255', '18.0.0.1', '::1', '2620:148::1', 'not an ip', '', '17.0.0'])
    assert.equal(isMachineOpen({ ip, userAgent: SAFARI }), false, ip);
  assert.equal(isMachineOpen({}), false);
  assert.equal(isMachineOpen({ ip: '10.0.0.1', userAgent: 'Mozilla/5.0 (Windows NT 10.0)' }), false);
});
