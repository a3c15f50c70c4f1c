// Mastra's MCP client (@mastra/mcp), as an agent gets it: one server, an
// inputRequests handler that answers elicitation after a latency (Mastra
// supports no sampling). --protocol 2026-07-28 (its default) or
// 2025-11-25 ('legacy'). See args.mjs for the command line.
import { InternalMastraMCPClient } from '@mastra/mcp';
import { parseArgs, sleep, elicitationAnswer, report, fail } from './args.mjs';

const name = 'mastra';
const o = parseArgs(name);
const server = {
  ...(o.url ? { url: new URL(o.url) } : { command: o.command[0], args: o.command.slice(1), stderr: 'inherit' }),
  protocolVersion: o.protocol === '2025-11-25' ? 'legacy' : o.protocol,
  inputRequests: async () => { await sleep(o['latency-ms']); return elicitationAnswer; },
  onToolError: 'return',
};
const client = new InternalMastraMCPClient({ name: 'mastra', server, timeout: 60000 });
try {
  await client.connect();
  const tools = await client.tools();
  const tool = tools[o.tool];
  if (!tool) throw new Error(`no tool ${o.tool}; the server has ${Object.keys(tools).join(', ')}`);
  const start = performance.now();
  const res = await tool.execute(o.args, {});
  report(name, o.protocol, start, res);
} catch (e) {
  fail(name, e);
} finally {
  await client.disconnect();
}
