// A fan-out MCP server built with the official TypeScript SDK, for Fanout
// Inspector's interop tests and benchmarks.
//
// Tool fanout {n, kind} sends n requests of one kind ("sampling" or
// "elicitation") to the client at once (Promise.all over
// server.server.createMessage / server.server.elicitInput) and returns the
// client's replies and the time the whole fan-out took as the server saw it.
// Each request is sent with the SDK's relatedRequestId (the tools/call's
// id), its own way of relating a request to the call it is made for: over
// streamable HTTP it puts the request on that call's response stream. The
// SDK adds nothing to the request itself, so over stdio a client cannot
// tell which call a request belongs to.
//
// Tool traceparent {} answers with the W3C trace context (SEP-414) the
// tools/call carried in params._meta: its traceparent as text, and
// {traceparent, tracestate, meta} as structured content.
//
// Tool traced_sampling {} acts as a server instrumented with
// OpenTelemetry would: it starts a span of its own as a child of the
// call's traceparent (same trace, a new span id; a new trace when the
// call carried none that is valid), sends one sampling request whose
// _meta.traceparent names that span, and returns {received, trace_id,
// server_span_id, sent, reply}.
//
//   node server.mjs                 serve over stdio
//   node server.mjs --http PORT     serve streamable HTTP at http://127.0.0.1:PORT/mcp
//                                   (PORT 0 picks a free port; the URL is printed on stdout)
import http from 'node:http';
import { randomBytes, randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

function newServer() {
  const server = new McpServer({ name: 'ts-fanout', version: '1.0.0' });
  server.registerTool(
    'fanout',
    {
      description: 'Sends n concurrent sampling or elicitation requests to the client and returns the replies.',
      inputSchema: {
        n: z.number().int().min(1).max(10000).default(5),
        kind: z.enum(['sampling', 'elicitation']).default('sampling'),
      },
    },
    async ({ n, kind }, extra) => {
      const related = { relatedRequestId: extra.requestId };
      const start = performance.now();
      const one = async (i) => {
        if (kind === 'sampling') {
          const res = await server.server.createMessage({
            messages: [{ role: 'user', content: { type: 'text', text: `Request ${i} of ${n}: say hello.` } }],
            maxTokens: 100,
          }, related);
          return res.content.type === 'text' ? res.content.text : JSON.stringify(res.content);
        }
        const res = await server.server.elicitInput({
          message: `Request ${i} of ${n}: please fill in the form.`,
          requestedSchema: {
            type: 'object',
            properties: {
              name: { type: 'string', title: 'Name' },
              count: { type: 'integer', minimum: 1, maximum: 10 },
              subscribe: { type: 'boolean' },
              color: { type: 'string', enum: ['red', 'green', 'blue'] },
            },
            required: ['name', 'color'],
          },
        }, related);
        return `${res.action} ${JSON.stringify(res.content ?? {})}`;
      };
      const replies = await Promise.all(Array.from({ length: n }, (_, k) => one(k + 1)));
      const elapsedMs = performance.now() - start;
      return {
        content: [{ type: 'text', text: `${n} ${kind} requests answered in ${elapsedMs.toFixed(1)} ms:\n` + replies.map((r, k) => `${k + 1}: ${r}`).join('\n') }],
        structuredContent: { n, kind, elapsed_ms: elapsedMs, replies },
      };
    },
  );
  server.registerTool(
    'traceparent',
    { description: 'Answers with the W3C traceparent (and tracestate) the call carried in params._meta.', inputSchema: {} },
    async (_args, extra) => {
      const meta = extra._meta ?? {};
      const traceparent = typeof meta.traceparent === 'string' ? meta.traceparent : '';
      const tracestate = typeof meta.tracestate === 'string' ? meta.tracestate : '';
      return {
        content: [{ type: 'text', text: traceparent }],
        structuredContent: { traceparent, tracestate, meta },
      };
    },
  );
  server.registerTool(
    'traced_sampling',
    { description: "Starts a span as a child of the call's traceparent and sends one sampling request carrying it.", inputSchema: {} },
    async (_args, extra) => {
      const received = typeof extra._meta?.traceparent === 'string' ? extra._meta.traceparent : '';
      const m = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(received);
      const traceId = m && !/^0+$/.test(m[1]) ? m[1] : randomBytes(16).toString('hex');
      const serverSpanId = randomBytes(8).toString('hex');
      const sent = `00-${traceId}-${serverSpanId}-01`;
      const res = await server.server.createMessage({
        messages: [{ role: 'user', content: { type: 'text', text: 'Say hello from inside a traced span.' } }],
        maxTokens: 100,
        _meta: { traceparent: sent },
      }, { relatedRequestId: extra.requestId });
      const reply = res.content.type === 'text' ? res.content.text : JSON.stringify(res.content);
      return {
        content: [{ type: 'text', text: sent }],
        structuredContent: { received, trace_id: traceId, server_span_id: serverSpanId, sent, reply },
      };
    },
  );
  return server;
}

async function serveHTTP(port) {
  const transports = new Map();
  const httpServer = http.createServer(async (req, res) => {
    try {
      if (!req.url.startsWith('/mcp')) {
        res.writeHead(404).end('not found: the endpoint is /mcp\n');
        return;
      }
      let body;
      if (req.method === 'POST') {
        const chunks = [];
        for await (const c of req) chunks.push(c);
        body = JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null');
      }
      const sid = req.headers['mcp-session-id'];
      let transport = sid ? transports.get(sid) : undefined;
      if (!transport) {
        if (req.method !== 'POST' || !isInitializeRequest(body)) {
          res.writeHead(400, { 'content-type': 'application/json' }).end(
            JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'no valid session: initialize first' }, id: null }));
          return;
        }
        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => transports.set(id, transport),
        });
        transport.onclose = () => { if (transport.sessionId) transports.delete(transport.sessionId); };
        await newServer().connect(transport);
      }
      await transport.handleRequest(req, res, body);
    } catch (err) {
      console.error('tsserver:', err);
      if (!res.headersSent) res.writeHead(500).end(String(err));
    }
  });
  httpServer.listen(port, '127.0.0.1', () => {
    const { port: p } = httpServer.address();
    console.log(`http://127.0.0.1:${p}/mcp`);
  });
  const stop = () => httpServer.close(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

const i = process.argv.indexOf('--http');
if (i >= 0) {
  await serveHTTP(Number(process.argv[i + 1] ?? 0));
} else {
  await newServer().connect(new StdioServerTransport());
}
