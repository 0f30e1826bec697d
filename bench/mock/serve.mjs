// Starts the built mock (packages/mock/dist) and prints its URL, API key and export totals as
// one JSON line. Used by the benchmarks, which run it in a child process so that the load
// generator does not share the server's event loop.
import { startMockServer } from '../../packages/mock/dist/node.js';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const records = opt('records', undefined);
const server = await startMockServer({ port: 0, ...(records === undefined ? {} : { records }) });
console.log(JSON.stringify({ url: server.url, apiKey: server.info.apiKey }));
const stop = () => server.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
