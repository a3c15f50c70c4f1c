// The official TypeScript SDK 1.x client (@modelcontextprotocol/sdk), as an
// application would use it: handlers for sampling and elicitation that
// answer after a latency. See args.mjs for the command line.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { parseArgs, sleep, samplingAnswer, elicitationAnswer, report, fail } from './args.mjs';

const name = 'ts-sdk';
const o = parseArgs(name);
const client = new Client({ name: 'ts-sdk-1.x', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: {} } });
client.setRequestHandler(CreateMessageRequestSchema, async () => { await sleep(o['latency-ms']); return samplingAnswer; });
client.setRequestHandler(ElicitRequestSchema, async () => { await sleep(o['latency-ms']); return elicitationAnswer; });
const transport = o.url
  ? new StreamableHTTPClientTransport(new URL(o.url))
  : new StdioClientTransport({ command: o.command[0], args: o.command.slice(1), stderr: 'inherit' });
try {
  await client.connect(transport);
  const start = performance.now();
  const res = await client.callTool({ name: o.tool, arguments: o.args }, undefined, { timeout: 60000 });
  report(name, null, start, res);
} catch (e) {
  fail(name, e);
} finally {
  await client.close();
}
