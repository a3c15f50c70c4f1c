// A reference client built with the official TypeScript SDK v2
// (@modelcontextprotocol/client): it pins protocol 2026-07-28, calls the v2
// server's fanout tool and fulfils each input request after a fixed latency
// (setTimeout), as the SDK does it (a round's input requests at once). It
// prints one JSON line: per round, how long the server says it waited for
// the retry (wait_ms), when the client's handlers of that round ran (from
// the first start to the last end, handlers_ms) and the most that ran at
// once (peak), and the whole call's elapsed_ms.
//
//   node client.mjs [--http URL] [--n 5] [--rounds 2] [--kind sampling] [--latency-ms 300]
//
// Without --http it starts server.mjs (beside it) over stdio.
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const opts = { http: '', n: 5, rounds: 2, kind: 'sampling', 'latency-ms': 300 };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) {
  const key = argv[i].replace(/^--/, '');
  if (!(key in opts) || argv[i + 1] === undefined) {
    console.error(`client.mjs: unknown or incomplete option ${argv[i]}; options: --http URL --n N --rounds R --kind K --latency-ms MS`);
    process.exit(2);
  }
  opts[key] = typeof opts[key] === 'number' ? Number(argv[i + 1]) : argv[i + 1];
}

const now = () => performance.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Each handler notes when it ran, under the round its request named.
const runs = new Map(); // round → {first, last, inFlight, peak}
let inFlight = 0;
let lastRound = 0; // a roots/list request names no round: count it in the latest
async function served(text, answer) {
  const round = Number(/Round (\d+)/.exec(text ?? '')?.[1] ?? lastRound);
  lastRound = round;
  const r = runs.get(round) ?? { first: Infinity, last: 0, inFlight: 0, peak: 0 };
  runs.set(round, r);
  r.first = Math.min(r.first, now());
  r.inFlight++;
  r.peak = Math.max(r.peak, r.inFlight);
  inFlight++;
  try {
    await sleep(opts['latency-ms']);
    return answer();
  } finally {
    r.inFlight--;
    inFlight--;
    r.last = Math.max(r.last, now());
  }
}

const client = new Client(
  { name: 'ts-v2-reference-client', version: '1.0.0' },
  { capabilities: { sampling: {}, elicitation: {}, roots: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
);
client.setRequestHandler('sampling/createMessage', (req) =>
  served(req.params.messages.at(-1)?.content?.text, () => ({
    model: 'reference', role: 'assistant', content: { type: 'text', text: 'hello from the reference client' },
  })));
client.setRequestHandler('elicitation/create', (req) =>
  served(req.params.message, () => ({ action: 'accept', content: { name: 'reference', color: 'green' } })));
client.setRequestHandler('roots/list', () => served('', () => ({ roots: [{ uri: 'file:///tmp', name: 'tmp' }] })));

const transport = opts.http
  ? new StreamableHTTPClientTransport(new URL(opts.http))
  : new StdioClientTransport({ command: process.execPath, args: [fileURLToPath(new URL('server.mjs', import.meta.url))] });
try {
  await client.connect(transport);
  const start = now();
  const res = await client.callTool({ name: 'fanout', arguments: { n: opts.n, rounds: opts.rounds, kind: opts.kind } });
  const elapsedMs = now() - start;
  const waited = res.structuredContent?.rounds_waited ?? [];
  const rounds = waited.map((w) => {
    const r = runs.get(w.round);
    return { round: w.round, wait_ms: w.wait_ms, handlers_ms: r ? r.last - r.first : null, peak: r?.peak ?? 0 };
  });
  console.log(JSON.stringify({ protocol: client.getNegotiatedProtocolVersion?.() ?? null, elapsed_ms: elapsedMs, rounds }));
} catch (e) {
  console.error(`client.mjs: ${e?.message ?? e}`);
  process.exitCode = 1;
} finally {
  await client.close();
}
