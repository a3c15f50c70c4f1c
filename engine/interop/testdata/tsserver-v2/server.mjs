// A multi-round-trip fan-out MCP server built with the official TypeScript
// SDK v2 (@modelcontextprotocol/server), for Fanout Inspector's interop
// tests. It serves protocol 2026-07-28, where a server may not send requests
// to the client during a tool call: it answers with input_required instead.
//
// Tool fanout {n, rounds, kind} answers each call with `rounds` input_required
// results of n input requests each ("r1-0" … "r1-<n-1>", then "r2-0" …), and
// then with its final result: per round, how long the server waited from
// handing out the input_required result to receiving the client's retry
// (text and structuredContent.rounds[].wait_ms). kind is "sampling",
// "elicitation" or "mixed" (sampling, elicitation and roots in turn).
//
//   node server.mjs                 serve over stdio
//   node server.mjs --http PORT     serve streamable HTTP at http://127.0.0.1:PORT/mcp
//                                   (PORT 0 picks a free port; the URL is printed on stdout)
import http from 'node:http';
import { McpServer, createMcpHandler, inputRequired, inputResponse } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

// One clock for the whole process: the server's waits are differences of it.
const now = () => performance.now();

function inputRequest(kind, round, i, n) {
  const k = kind === 'mixed' ? ['sampling', 'elicitation', 'roots'][i % 3] : kind;
  switch (k) {
    case 'sampling':
      return inputRequired.createMessage({
        messages: [{ role: 'user', content: { type: 'text', text: `Round ${round}, request ${i + 1} of ${n}: say hello.` } }],
        maxTokens: 100,
      });
    case 'elicitation':
      return inputRequired.elicit({
        message: `Round ${round}, request ${i + 1} of ${n}: please fill in the form.`,
        requestedSchema: {
          type: 'object',
          properties: { name: { type: 'string', title: 'Name' }, color: { type: 'string', enum: ['red', 'green', 'blue'] } },
          required: ['name'],
        },
      });
    default:
      return inputRequired.listRoots();
  }
}

// describe turns one input response into a short line for the result.
function describe(view) {
  switch (view.kind) {
    case 'sampling':
      return view.result.content?.type === 'text' ? view.result.content.text : JSON.stringify(view.result.content);
    case 'elicit':
      return `${view.action} ${JSON.stringify(view.content ?? {})}`;
    case 'roots':
      return `${view.roots.length} roots`;
    default:
      return 'missing';
  }
}

function newServer() {
  const server = new McpServer({ name: 'ts-fanout-v2', version: '1.0.0' });
  server.registerTool(
    'fanout',
    {
      description: 'Asks the client for n input requests per round over `rounds` rounds (input_required) and reports how long each round waited for the retry.',
      inputSchema: {
        n: z.number().int().min(1).max(1000).default(5),
        rounds: z.number().int().min(1).max(20).default(1),
        kind: z.enum(['sampling', 'elicitation', 'mixed']).default('sampling'),
      },
    },
    async ({ n, rounds, kind }, ctx) => {
      // requestState carries what the server needs across rounds: the round
      // it handed out, when, and the rounds so far. It is not protected: a
      // test server trusts its client.
      const raw = ctx.mcpReq.requestState?.();
      const state = raw ? JSON.parse(raw) : { round: 0, askedAt: 0, done: [] };
      if (state.round > 0) {
        const waitMs = now() - state.askedAt;
        const responses = ctx.mcpReq.inputResponses;
        const replies = [];
        for (let i = 0; i < n; i++) {
          replies.push(describe(inputResponse(responses, `r${state.round}-${i}`)));
        }
        state.done.push({ round: state.round, wait_ms: waitMs, replies });
      }
      if (state.round < rounds) {
        const round = state.round + 1;
        const inputRequests = {};
        for (let i = 0; i < n; i++) inputRequests[`r${round}-${i}`] = inputRequest(kind, round, i, n);
        return inputRequired({ inputRequests, requestState: JSON.stringify({ round, askedAt: now(), done: state.done }) });
      }
      const lines = state.done.map((r) => `round ${r.round}: waited ${r.wait_ms.toFixed(1)} ms for the retry; ` + r.replies.map((x, i) => `${i}: ${x}`).join('; '));
      return {
        content: [{ type: 'text', text: `${rounds} rounds of ${n} ${kind} input requests:\n` + lines.join('\n') }],
        structuredContent: { n, rounds, kind, rounds_waited: state.done },
      };
    },
  );
  return server;
}

// serveHTTP mounts the SDK's web-standard handler on node:http: each node
// request becomes a fetch Request, and the Response (JSON or an SSE stream)
// is written back as it comes.
async function serveHTTP(port) {
  const handler = createMcpHandler(newServer, { onerror: (e) => console.error('mcp:', e.message) });
  const httpServer = http.createServer(async (req, res) => {
    try {
      if (!req.url.startsWith('/mcp')) {
        res.writeHead(404).end('not found: the endpoint is /mcp\n');
        return;
      }
      const chunks = [];
      for await (const c of req) chunks.push(c);
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) {
        for (const one of [].concat(v)) headers.append(k, one);
      }
      const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
      const request = new Request(`http://${req.headers.host}${req.url}`, {
        method: req.method,
        headers,
        body: hasBody ? Buffer.concat(chunks) : undefined,
      });
      const response = await handler.fetch(request);
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (response.body) {
        for await (const chunk of response.body) res.write(chunk);
      }
      res.end();
    } catch (e) {
      console.error('http:', e);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    }
  });
  await new Promise((resolve) => httpServer.listen(port, '127.0.0.1', resolve));
  console.log(`http://127.0.0.1:${httpServer.address().port}/mcp`);
}

const args = process.argv.slice(2);
if (args[0] === '--http') {
  await serveHTTP(Number(args[1] ?? 0));
} else {
  serveStdio(newServer);
}
