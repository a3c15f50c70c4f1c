// The Vercel AI SDK's MCP client (@ai-sdk/mcp), its own JSON-RPC code: it
// answers elicitation only (no sampling), through onElicitationRequest,
// after a latency. --protocol 2026-07-28 lets it discover the protocol
// (server/discover, its default); 2025-11-25 turns discovery off so it
// initializes the legacy way. See args.mjs for the command line.
import { createMCPClient, ElicitationRequestSchema } from '@ai-sdk/mcp';
import { StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import { parseArgs, sleep, elicitationAnswer, report, fail } from './args.mjs';

const name = 'ai-sdk';
const o = parseArgs(name);
let client;
try {
  client = await createMCPClient({
    name: 'ai-sdk-mcp',
    transport: o.url
      ? { type: 'http', url: o.url }
      : new StdioMCPTransport({ command: o.command[0], args: o.command.slice(1), stderr: 'inherit' }),
    capabilities: { elicitation: {} },
    protocolVersionDiscovery: o.protocol !== '2025-11-25',
  });
  client.onElicitationRequest(ElicitationRequestSchema, async () => { await sleep(o['latency-ms']); return elicitationAnswer; });
  const start = performance.now();
  const res = await client.callTool({ name: o.tool, arguments: o.args, options: { timeout: 60000 } });
  report(name, o.protocol, start, res);
} catch (e) {
  fail(name, e);
} finally {
  await client?.close();
}
