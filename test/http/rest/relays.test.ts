// /api/v1/external/relays (our addition): an account's own SMTP relay carries the mail from its domains and
// nobody else's. Two accounts, two real SMTP sinks: the instance's (SMTP_URL, sink A) and the second
// account's relay (sink B). Also: the relay's password never appears in an answer, a log line or the row;
// "send a test"; another account's relay is not found; bad input is a clear 4xx.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sendCampaignTo } from '../../support/campaigns.ts';
import { fileScope } from '../../support/scope.ts';
import { restClient, startServer } from '../../support/server.ts';
import { startSink } from '../../support/smtpSink.ts';

const PASSWORD = 'pa55-W0rd-never-shown';
const sinkA = await startSink();
const sinkB = await startSink();
const log: string[] = [];
const s = await startServer(
  fileScope,
  { SMTP_URL: sinkA.url, ALLOW_PRIVATE_SMTP_RELAYS: true, LOG_LEVEL: 'info' },
  { log },
);
// after the server has stopped (and said QUIT)
fileScope.after(() => sinkA.close());
fileScope.after(() => sinkB.close());
const relayUrl = `smtp://relay-user:${encodeURIComponent(PASSWORD)}@127.0.0.1:${sinkB.port}?starttls=false`;
const MISSING = '00000000-0000-4000-8000-000000000000';

const toB = (to: string) => sinkB.messages.filter((m) => m.to.includes(to)).length;
const toA = (to: string) => sinkA.messages.filter((m) => m.to.includes(to)).length;

describe('Relays', () => {
  test("a second account's relay carries its mail only; the first account's goes to SMTP_URL", async () => {
    const first = await s.restAccount();
    const second = await s.restAccount();
    const made = await second.api.post('/relays', {
      name: 'Own relay',
      url: relayUrl,
      from_domains: ['News.Second.TEST', 'second.test'],
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const relay = made.body.data;
    assert.deepEqual(
      { ...relay, id: undefined, created_at: undefined },
      {
        id: undefined,
        name: 'Own relay',
        host: '127.0.0.1',
        port: sinkB.port,
        secure: false,
        has_credentials: true,
        from_domains: ['news.second.test', 'second.test'],
        created_at: undefined,
      },
    );
    const row = await s.db.selectFrom('smtp_relays').selectAll().where('id', '=', relay.id).executeTakeFirstOrThrow();
    assert.match(row.url_sealed, /^v1:/);
    assert.ok(!JSON.stringify(row).includes(PASSWORD) && !JSON.stringify(row).includes('relay-user'), 'sealed at rest');

    // both accounts send from the same domain: only the second has a relay for it
    await sendCampaignTo(s.db, second.api, second.accountId, ['b1@example.org', 'b2@example.org'], {
      from_email: 'hello@news.second.test',
    });
    await sendCampaignTo(s.db, first.api, first.accountId, ['a1@example.org'], {
      from_email: 'hello@news.second.test',
    });
    assert.deepEqual([toB('b1@example.org'), toB('b2@example.org'), toA('b1@example.org')], [1, 1, 0]);
    assert.deepEqual([toA('a1@example.org'), toB('a1@example.org')], [1, 0]);
    // a From domain the relay does not list goes the instance's way
    await sendCampaignTo(s.db, second.api, second.accountId, ['b3@example.org'], { from_email: 'hi@other.test' });
    assert.deepEqual([toA('b3@example.org'), toB('b3@example.org')], [1, 0]);

    // send a test: through the relay, its reply answered
    const tested = await second.api.post(`/relays/${relay.id}/test`, { to: 'check@example.org' });
    assert.equal(tested.status, 200, JSON.stringify(tested.body));
    assert.equal(tested.body.data.ok, true);
    assert.equal(toB('check@example.org'), 1);
    assert.equal(toA('check@example.org'), 0);

    // the first account sees none of it
    assert.deepEqual((await first.api.get('/relays')).body.data.relays, []);
    assert.equal((await first.api.post(`/relays/${relay.id}/test`, { to: 'x@example.org' })).status, 404);
    assert.equal((await first.api.delete(`/relays/${relay.id}`)).status, 404);

    const listed = await second.api.get('/relays');
    assert.deepEqual(
      listed.body.data.relays.map((r: any) => r.id),
      [relay.id],
    );
    // deleted: its domains go the instance's way again
    assert.equal((await second.api.delete(`/relays/${relay.id}`)).status, 200);
    assert.equal((await second.api.delete(`/relays/${relay.id}`)).status, 404);
    await sendCampaignTo(s.db, second.api, second.accountId, ['b4@example.org'], {
      from_email: 'hello@news.second.test',
    });
    assert.deepEqual([toA('b4@example.org'), toB('b4@example.org')], [1, 0]);

    for (const line of log) assert.ok(!line.includes(PASSWORD), `a log line holds the password: ${line}`);
    assert.ok(!log.some((l) => /"msg":"unhandled error"/.test(l)), 'no internal error');
  });

  test('an SMTP error is answered without the credentials', async () => {
    const refusing = await startSink({ reply: () => [550, `5.7.1 relay-user ${PASSWORD} not allowed`] });
    const { api } = await s.restAccount();
    const made = await api.post('/relays', {
      name: 'Refusing',
      url: `smtp://relay-user:${encodeURIComponent(PASSWORD)}@127.0.0.1:${refusing.port}?starttls=false`,
      from_domains: ['refusing.test'],
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const tested = await api.post(`/relays/${made.body.data.id}/test`, { to: 'x@example.org' });
    assert.equal(tested.status, 200);
    assert.equal(tested.body.data.ok, false);
    assert.match(tested.body.data.message, /550/);
    assert.ok(!tested.body.data.message.includes(PASSWORD), tested.body.data.message);
    assert.ok(!tested.body.data.message.includes('relay-user'), tested.body.data.message);
    // deleted, the relay's connection is closed (QUIT): the sink stops without waiting for it
    assert.equal((await api.delete(`/relays/${made.body.data.id}`)).status, 200);
    const closing = Date.now();
    await refusing.close();
    assert.ok(Date.now() - closing < 5000, `the relay's connection stayed open ${Date.now() - closing} ms`);
  });

  test('bad input is a clear 4xx that never echoes the URL', async () => {
    const { api } = await s.restAccount();
    const good = { name: 'Relay', url: relayUrl, from_domains: ['bad-input.test'] };
    const cases: [unknown, number, RegExp][] = [
      [{ ...good, url: 'https://relay.example.com' }, 400, /smtp:\/\/ or smtps:\/\//],
      [{ ...good, url: `ftp://u:${PASSWORD}@relay.example.com` }, 400, /smtp:\/\//],
      [{ ...good, url: 'not a url' }, 400, /url/],
      [{ ...good, url: `smtp://u:${PASSWORD}@relay.example.com/path` }, 400, /path/],
      [{ ...good, url: `smtp://u:${PASSWORD}@relay.example.com?debug=1` }, 400, /starttls=false/],
      [{ ...good, url: 'smtp://relay.example.com:0' }, 400, /port 0/],
      [{ ...good, url: `smtp://${'a'.repeat(3000)}.test` }, 400, /2048/],
      [{ ...good, url: 42 }, 400, /url/],
      [{ ...good, from_domains: [] }, 400, /at least one/],
      [{ ...good, from_domains: 'bad-input.test' }, 400, /from_domains/],
      [{ ...good, from_domains: ['not a domain'] }, 400, /domain name/],
      [{ ...good, from_domains: ['com'] }, 400, /domain name/],
      [{ ...good, from_domains: Array.from({ length: 51 }, (_, i) => `d${i}.test`) }, 400, /at most 50/],
      [{ ...good, from_domains: ['x'.repeat(5000) + '.test'] }, 400, /domain name/],
      [{ ...good, name: '' }, 400, /name/],
      [{ ...good, name: 'n'.repeat(101) }, 400, /100/],
      [{ ...good, extra: true }, 400, /extra|Unrecognized/i],
      [{ url: relayUrl, from_domains: ['bad-input.test'] }, 400, /name/],
    ];
    for (const [body, status, message] of cases) {
      const res = await api.post('/relays', body);
      assert.equal(res.status, status, `${JSON.stringify(body).slice(0, 200)} → ${JSON.stringify(res.body)}`);
      assert.match(JSON.stringify(res.body), message, JSON.stringify(res.body));
      assert.ok(!JSON.stringify(res.body).includes(PASSWORD), JSON.stringify(res.body));
    }
    assert.equal((await api.post('/relays', good)).status, 201);
    const sameName = await api.post('/relays', { ...good, name: 'RELAY', from_domains: ['other.test'] });
    assert.equal(sameName.status, 409, JSON.stringify(sameName.body));
    const sameDomain = await api.post('/relays', { ...good, name: 'Second', from_domains: ['BAD-INPUT.test'] });
    assert.equal(sameDomain.status, 409, JSON.stringify(sameDomain.body));
    assert.match(sameDomain.body.error, /bad-input\.test/);
    assert.equal((await api.delete(`/relays/${MISSING}`)).status, 404);
    assert.equal((await api.delete('/relays/not-a-uuid')).status, 404);
    assert.equal((await api.post(`/relays/${MISSING}/test`, { to: 'x@example.org' })).status, 404);
    const list = await api.get('/relays');
    assert.equal(list.body.data.relays.length, 1);
    const badTo = await api.post(`/relays/${list.body.data.relays[0].id}/test`, { to: 'nobody' });
    assert.equal(badTo.status, 400, JSON.stringify(badTo.body));
  });

  test('scopes: campaigns:read lists, campaigns:write changes', async () => {
    const { accountId } = await s.restAccount();
    const reader = restClient(s.url, (await s.newKey(accountId, ['campaigns:read'])).key);
    assert.equal((await reader.get('/relays')).status, 200);
    const post = await reader.post('/relays', { name: 'x', url: relayUrl, from_domains: ['scoped.test'] });
    assert.equal(post.status, 403);
    const writer = restClient(s.url, (await s.newKey(accountId, ['campaigns:write'])).key);
    assert.equal(
      (await writer.post('/relays', { name: 'x', url: relayUrl, from_domains: ['scoped.test'] })).status,
      201,
    );
    const other = restClient(s.url, (await s.newKey(accountId, ['subscribers:*'])).key);
    assert.equal((await other.get('/relays')).status, 403);
  });
});
