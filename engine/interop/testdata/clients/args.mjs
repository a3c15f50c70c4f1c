// The command line every client script here takes, and how it reports:
//
//   node SCRIPT.mjs [--latency-ms 500] [--tool fanout] [--args '{"n":5}']
//                   [--protocol 2025-11-25] (--url URL | -- SERVER CMD ARGS...)
//
// The server is either a command line after "--" (started over stdio) or a
// streamable HTTP URL. The script answers the server's sampling or
// elicitation requests after latency-ms milliseconds, the way its library
// does it (no lock of ours), calls the tool once and prints one JSON line
// {client, protocol, elapsed_ms, result} on stdout; diagnostics go to stderr.

export function parseArgs(name) {
  const opts = { 'latency-ms': 500, tool: 'fanout', args: '{"n":5}', protocol: '2025-11-25', url: '', command: [] };
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--') {
      opts.command = argv.slice(i + 1);
      break;
    }
    const key = argv[i].replace(/^--/, '');
    if (!(key in opts) || key === 'command' || argv[i + 1] === undefined) {
      console.error(`${name}: unknown or incomplete option ${argv[i]}; options: --latency-ms MS --tool NAME --args JSON --protocol VERSION (--url URL | -- SERVER CMD ARGS...)`);
      process.exit(2);
    }
    opts[key] = argv[++i];
  }
  opts['latency-ms'] = Number(opts['latency-ms']);
  opts.args = JSON.parse(opts.args);
  if (!opts.url && opts.command.length === 0) {
    console.error(`${name}: give the server: --url URL, or its command line after --`);
    process.exit(2);
  }
  return opts;
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// The answers every client gives, after its latency.
export const samplingAnswer = { model: 'real-client', role: 'assistant', content: { type: 'text', text: 'hello from a real client' } };
export const elicitationAnswer = { action: 'accept', content: { name: 'real-client', color: 'green' } };

// report prints the one line of stdout.
export function report(client, protocol, start, result) {
  process.stdout.write(JSON.stringify({ client, protocol, elapsed_ms: performance.now() - start, result }) + '\n');
}

// fail says what went wrong on stderr and sets the exit status.
export function fail(name, e) {
  console.error(`${name}: ${e?.stack ?? e?.message ?? e}`);
  process.exitCode = 1;
}
