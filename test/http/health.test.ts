// Spec "Health check": public, 200 with status ok/message/timestamp/version; 503 with status down and
// message only when the database does not answer within 1 s. Never hangs.
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { after, describe, test } from 'node:test';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config.ts';
import { openDb, type DbHandle } from '../../src/db/client.ts';
import { buildApp } from '../../src/http/app.ts';
import { Queue } from '../../src/jobs/queue.ts';
import { createTransport } from '../../src/mail/transport.ts';
import { client, startServer, TEST_ENV, type TestServer } from '../support/server.ts';

/** The app alone (no migrations, no workers) over a given handle: enough for /api/health. */
async function appOver(handle: DbHandle): Promise<{ app: FastifyInstance; url: string }> {
  const config = loadConfig({ ...TEST_ENV }, {});
  const app = await buildApp(config, {
    handle,
    queue: new Queue(handle, 1),
    transport: createTransport(config, handle.db),
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` };
}

/** A TCP port that accepts connections and never says a word: a database that does not answer. */
async function silentDatabase(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((s) => {
    sockets.add(s);
    s.on('error', () => {});
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/silent`,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

const s: TestServer = await startServer({ after });

describe('Health check', () => {
  test('Health check › 200 status ok, message, timestamp, version', async () => {
    const res = await client(s.url).get('/api/health');
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body).sort(), ['message', 'status', 'timestamp', 'version']);
    assert.equal(res.body.status, 'ok');
    assert.equal(typeof res.body.message, 'string');
    assert.equal(res.body.version, s.config.version);
    assert.ok(Math.abs(Date.parse(res.body.timestamp) - Date.now()) < 60_000, 'timestamp is ISO 8601 and current');
    assert.match(res.body.timestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
  });

  test('Health check › no authentication needed (a bad key does not matter)', async () => {
    const res = await client(s.url, 'not-a-key').get('/api/health');
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'ok');
  });

  test('Health check › 503 status down and message only (database does not answer within 1 s)', async () => {
    const silent = await silentDatabase();
    const handle = await openDb({ url: silent.url });
    const { app, url } = await appOver(handle);
    try {
      for (let i = 0; i < 2; i++) {
        const started = Date.now();
        const res = await client(url).get('/api/health');
        const elapsed = Date.now() - started;
        assert.equal(res.status, 503);
        assert.deepEqual(Object.keys(res.body).sort(), ['message', 'status']);
        assert.equal(res.body.status, 'down');
        assert.equal(typeof res.body.message, 'string');
        assert.ok(
          elapsed >= 900 && elapsed < 2500,
          `answered after ${elapsed} ms; the spec's bound is ~1 s, never a hang`,
        );
      }
    } finally {
      await silent.close(); // the pending connects fail now, so the pool can end
      await app.close();
      await handle.close().catch(() => {});
    }
  });

  test('Health check › 503 status down and message only (database gone)', async () => {
    const handle = await openDb({});
    const { app, url } = await appOver(handle);
    try {
      assert.equal((await client(url).get('/api/health')).status, 200);
      await handle.close();
      const started = Date.now();
      const res = await client(url).get('/api/health');
      assert.equal(res.status, 503);
      assert.deepEqual(res.body, { status: 'down', message: res.body.message });
      assert.equal(typeof res.body.message, 'string');
      assert.ok(Date.now() - started < 2500);
    } finally {
      await app.close();
    }
  });
});

describe('Readiness (our addition)', () => {
  test('200 ready with each check ok on a started instance; no key needed', async () => {
    const res = await client(s.url, 'not-a-key').get('/api/health/ready');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { status: 'ready', checks: { database: 'ok', migrations: 'ok', queue: 'ok' } });
  });

  test('503 naming what is not ready: a database without the schema, a queue not started, a silent database', async () => {
    const handle = await openDb({});
    const { app, url } = await appOver(handle); // no migrations run, queue never started
    const silent = await silentDatabase();
    const silentHandle = await openDb({ url: silent.url });
    const other = await appOver(silentHandle);
    try {
      const res = await client(url).get('/api/health/ready');
      assert.equal(res.status, 503);
      assert.equal(res.body.status, 'not ready');
      assert.equal(res.body.checks.database, 'ok');
      assert.match(res.body.checks.migrations, /^\d+ pending$/);
      assert.equal(res.body.checks.queue, 'stopped');
      const down = await client(other.url).get('/api/health/ready');
      assert.equal(down.status, 503);
      assert.equal(down.body.checks.database, 'not responding');
    } finally {
      await silent.close();
      await other.app.close();
      await silentHandle.close().catch(() => {});
      await app.close();
      await handle.close();
    }
  });
});
