// The official TypeScript SDK v2 client (@modelcontextprotocol/client):
// handlers for sampling and elicitation that answer after a latency, the
// protocol pinned with --protocol (2025-11-25 or 2026-07-28; on 2026-07-28
// the SDK fulfils a round's input requests with the same handlers). See
// args.mjs for the command line.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { parseArgs, sleep, samplingAnswer, elicitationAnswer, report, fail } from './args.mjs';

const name = 'ts-sdk-v2';
const o = parseArgs(name);
const client = new Client(
  { name: 'ts-sdk-v2', version: '1.0.0' },
  { capabilities: { sampling: {}, elicitation: {} }, versionNegotiation: { mode: o.protocol === '2025-11-25' ? 'legacy' : { pin: o.protocol } } },
);
client.setRequestHandler('sampling/createMessage', async () => { await sleep(o['latency-ms']); return samplingAnswer; });
client.setRequestHandler('elicitation/create', async () => { await sleep(o['latency-ms']); return elicitationAnswer; });
const transport = o.url
  ? new StreamableHTTPClientTransport(new URL(o.url))
  : new StdioClientTransport({ command: o.command[0], args: o.command.slice(1), stderr: 'inherit' });
try {
  await client.connect(transport);
  const start = performance.now();
  const res = await client.callTool({ name: o.tool, arguments: o.args }, { timeout: 60000 });
  report(name, client.getNegotiatedProtocolVersion?.() ?? null, start, res);
} catch (e) {
  fail(name, e);
} finally {
  await client.close();
}
