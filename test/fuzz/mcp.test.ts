// Every MCP tool, called with arguments generated from its own inputSchema where any value may be hostile
// (test/support/arbitraries.ts): never -32603, always a result or tool error of the spec's shape or a -32602
// naming the problem, and the server still healthy. Seeded: a failure prints FUZZ_SEED to replay it.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import fc from 'fast-check';
import { mcpClient } from '../http/mcp/client.ts';
import { argumentsFor } from '../support/arbitraries.ts';
import { startServer } from '../support/server.ts';
import { RUNS, SEED, seedAccounts, TIME_LIMIT_MS } from './seed.ts';

const s = await startServer({ after }, { REST_RATE_LIMIT: 10_000_000, MCP_RATE_LIMIT: 10_000_000 });
const { mine, ids } = await seedAccounts(s);
const mcp = mcpClient(s.url, mine.key);
const tools: { name: string; inputSchema: Record<string, unknown> }[] = (await mcp.rpc('tools/list')).body.result.tools;

/** What is wrong with an answer, or undefined: the spec's layers are -32602 for arguments, a tool error for the rest. */
function problemWith(res: { status: number; body: any }): string | undefined {
  if (res.status !== 200) return `HTTP ${res.status}`;
  const { error, result } = res.body ?? {};
  if (error)
    return error.code === -32602 && typeof error.message === 'string'
      ? undefined
      : `JSON-RPC ${error.code} ${error.message}`;
  const text = result?.content?.[0]?.text;
  if (typeof text !== 'string') return 'result without text content';
  const body = JSON.parse(text);
  if (result.isError) return typeof body.error === 'string' ? undefined : 'tool error without error text';
  return body.success === true ? undefined : 'result without success';
}

describe('Fuzz › MCP tools', () => {
  test(`every tool answers generated and hostile arguments within the spec's error layers (FUZZ_SEED=${SEED})`, async () => {
    assert.equal(tools.length, 44);
    const failures: string[] = [];
    const tally: Record<string, number> = {};
    for (const [i, tool] of tools.entries()) {
      const outcome = await fc.check(
        fc.asyncProperty(argumentsFor(tool.inputSchema, { ids }), async (args) => {
          const res = await mcp.rpc('tools/call', { name: tool.name, arguments: args });
          const problem = problemWith(res);
          const kind = res.body?.error ? 'rpc' : res.body?.result?.isError ? 'toolError' : 'ok';
          tally[kind] = (tally[kind] ?? 0) + 1;
          if (problem) throw new Error(`${problem}: ${JSON.stringify(res.body).slice(0, 300)}`);
        }),
        {
          seed: SEED + i,
          numRuns: RUNS,
          interruptAfterTimeLimit: TIME_LIMIT_MS,
          markInterruptAsFailure: false,
          endOnFailure: true,
        },
      );
      if (outcome.failed && !(outcome.interrupted && outcome.numRuns === 0))
        failures.push(
          `${tool.name}: ${String((outcome.errorInstance as Error)?.message ?? outcome.errorInstance)} — args ${JSON.stringify(outcome.counterexample).slice(0, 300)}`,
        );
    }
    console.log(`seeded ${ids.length} ids; answers: ${JSON.stringify(tally)}`);
    assert.deepEqual(failures, [], `replay with FUZZ_SEED=${SEED}`);
    assert.equal(({} as Record<string, unknown>).polluted, undefined, 'no prototype pollution');
    assert.equal((await mcp.rpc('tools/list')).status, 200, 'the server still answers');
  });
});
