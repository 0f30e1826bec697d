/**
 * A test-side export service that answers with raw page text, so that what a JSON serializer
 * would never write (`1e400`, a lone surrogate `"\ud800"`) or a listing that drifts reaches the
 * client exactly as a real service could send it (D29). Any credential is accepted.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The body of page `page` of `resource` (limit 100), or undefined for an empty export. */
export type RawPages = (resource: string, page: number) => string | Buffer | undefined;

/** `{data, meta}` text of one page of `records` (raw JSON texts), `total` in all. */
function pageText(records: string[], page: number, total: number): string {
  const hasNext = page * 100 < total;
  return `{"data":[${records.join(',')}],"meta":{"page":${page},"limit":100,"total":${total},"hasNext":${hasNext}}}`;
}

/** Pages of 100 over `records` (raw JSON texts). */
export function pageTexts(records: string[]): (page: number) => string {
  return (page) => pageText(records.slice((page - 1) * 100, page * 100), page, records.length);
}

export async function startRawExportServer(
  pages: RawPages,
): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const match = /^\/api\/v1\/data-exports\/([a-z-]+)$/.exec(url.pathname);
    const page = Number(url.searchParams.get('page') ?? '1');
    const body = match ? (pages(match[1]!, page) ?? pageText([], page, 0)) : undefined;
    if (body === undefined) {
      res.writeHead(404, { 'content-type': 'application/problem+json' });
      res.end('{"title":"not found","status":404}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
