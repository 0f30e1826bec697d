import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type MockServer, startMockServer } from '@rcs/mock/node';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The browser example, in a real headless Chromium (Debian's `chromium`, driven by puppeteer-core):
// the page computes what `rcs check` shows, uploads to the mock running in the page (an MSW
// service worker over @rcs/mock's handlers: the mock in the browser) or to a real `rcs mock` on
// another origin (CORS, D26), and shows the score. Screenshots go to test-results/browser/.

const HERE = fileURLToPath(new URL('..', import.meta.url));
const REPO = join(HERE, '../..');
const DIST = join(HERE, 'dist');
const SHOTS = join(REPO, 'test-results/browser');
const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json',
};

let site: Server;
let siteUrl = '';
let mock: MockServer;
let browser: Browser;
let files = '';

/** A Zoom-style WebVTT: speakers by display name, which the upload must map to e-mails (R4). */
const ZOOM = [
  'WEBVTT',
  '',
  '1',
  '00:00:01.000 --> 00:00:04.000',
  'Ana Ruiz: Hello, what is your budget for this quarter?',
  '',
  '2',
  '00:00:04.500 --> 00:00:08.000',
  'Ben Okafor: About ten thousand, and our CFO decides.',
  '',
].join('\n');

/** A labeled SRT in which `rep` talks with a buyer. */
function call(rep: string): string {
  return [
    '1',
    '00:00:01,000 --> 00:00:06,000',
    `${rep}: Thanks for joining. What budget do you have for this, and who decides?`,
    '',
    '2',
    '00:00:07,000 --> 00:00:12,000',
    'buyer@client.example: About twenty thousand; our CFO signs off.',
    '',
    '3',
    '00:00:12,500 --> 00:00:20,000',
    `${rep}: Great. Next step: a follow-up with your CFO next week, I will send the invite.`,
    '',
  ].join('\n');
}

beforeAll(async () => {
  if (!CHROMIUM) return;
  execFileSync(process.execPath, [join(HERE, 'build.mjs')], { stdio: 'pipe' });
  site = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
    const file = join(DIST, path === '/' ? 'index.html' : path);
    if (!file.startsWith(DIST) || !existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    res.end(readFileSync(file));
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  siteUrl = `http://127.0.0.1:${(site.address() as { port: number }).port}/`;
  mock = await startMockServer({ port: 0, processingMs: 800 });
  files = mkdtempSync(join(tmpdir(), 'rcs-browser-'));
  mkdirSync(SHOTS, { recursive: true });
  browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    // Root in a container: Chromium's sandbox needs user namespaces it may not have.
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  site?.close();
  await mock?.close();
});

async function openPage(): Promise<Page> {
  const page = await browser.newPage();
  await page.setViewport({ width: 1100, height: 1000 });
  await page.goto(siteUrl, { waitUntil: 'load' });
  // The mock in the page (the MSW worker) is up and has offered its rep as the e-mail.
  await page.waitForSelector('body[data-mock="ready"]', { timeout: 30_000 });
  return page;
}

async function chooseFile(page: Page, name: string, text: string): Promise<void> {
  const path = join(files, name);
  writeFileSync(path, text);
  const input = await page.$('#file');
  await (input as unknown as { uploadFile(p: string): Promise<void> }).uploadFile(path);
  await page.waitForSelector('#report:not([hidden])');
}

const text = (page: Page, selector: string) =>
  page.$eval(selector, (e) => (e as HTMLElement).innerText);

describe.skipIf(!CHROMIUM)('the browser example in Chromium', () => {
  it('shows the check report, uploads to the mock in the page, and shows the score', async () => {
    const page = await openPage();
    const rep = await page.$eval('#email', (e) => (e as HTMLInputElement).value);
    expect(rep).toMatch(/@/);
    await chooseFile(page, 'good.srt', call(rep));
    expect(await text(page, '#summary')).toBe('good.srt: labeled-srt, 3 cues');
    const speakers = await page.$$eval('#speaker-table tbody tr', (rows) =>
      rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent)),
    );
    expect(speakers).toEqual([
      [rep, expect.any(String), '2', '3'],
      ['buyer@client.example', expect.any(String), '1', '7'],
    ]);
    expect(await text(page, '#rep-speaks')).toBe(`Rep ${rep} speaks: yes`);
    expect(await text(page, '#kpis')).toMatch(
      /^KPI preview: listen ratio \d+\.\d% · longest monologue/,
    );
    const lanes = await page.$$eval('#timeline .lane', (ls) =>
      ls.map((l) => [(l as HTMLElement).dataset.speaker, l.querySelectorAll('.bar span').length]),
    );
    expect(lanes).toEqual([
      [rep, 2],
      ['buyer@client.example', 1],
    ]);
    expect(await text(page, '#problems')).toContain('OK: the upload would pass pre-validation.');
    await page.click('#upload');
    await page.waitForFunction(
      () => /score \d+\/100/.test(document.getElementById('score')?.innerText ?? ''),
      { timeout: 60_000 },
    );
    expect(await text(page, '#status')).toMatch(/: DONE$/);
    await page.screenshot({ path: join(SHOTS, 'scored-in-page.png'), fullPage: true });
    await page.close();
  });

  it('a meeting-tool file: problems with their line numbers until its speakers are mapped', async () => {
    const page = await openPage();
    const rep = await page.$eval('#email', (e) => (e as HTMLInputElement).value);
    await chooseFile(page, 'zoom.vtt', ZOOM);
    const problems = () =>
      page.$$eval('#problems li', (lis) =>
        lis.map((li) => [(li as HTMLElement).dataset.line, li.textContent]),
      );
    expect(await problems()).toEqual([
      ['4', expect.stringMatching(/^line 4: Speaker "Ana Ruiz" .* has no e-mail/)],
      ['8', expect.stringMatching(/^line 8: Speaker "Ben Okafor" .* has no e-mail/)],
    ]);
    expect(await page.$eval('#upload', (b) => (b as HTMLButtonElement).disabled)).toBe(true);
    await page.screenshot({ path: join(SHOTS, 'problems.png'), fullPage: true });
    // Mapped, and picked again: converted to speaker-labeled SRT, nothing left to fix.
    await page.type('#speakers', `Ana Ruiz=${rep}\nBen Okafor=ben@client.example`);
    await page.waitForFunction(() => document.querySelectorAll('#problems li').length === 0);
    expect(await text(page, '#summary')).toBe(
      'zoom.vtt: labeled-srt, 2 cues (converted to speaker-labeled SRT)',
    );
    expect(await page.$eval('#upload', (b) => (b as HTMLButtonElement).disabled)).toBe(false);
    await page.close();
  });

  it('uploads to an `rcs mock` on another origin (CORS, D26) and shows its score', async () => {
    const page = await openPage();
    const rep = mock.info.repEmails[0] ?? '';
    await page.$eval('#email', (e) => {
      (e as HTMLInputElement).value = '';
    });
    await page.type('#email', rep);
    await chooseFile(page, 'remote.srt', call(rep));
    await page.click('input[name=target][value=url]');
    await page.type('#base-url', mock.url);
    await page.type('#api-key', mock.info.apiKey ?? '');
    await page.click('#upload');
    await page.waitForFunction(
      () => /score \d+\/100/.test(document.getElementById('score')?.innerText ?? ''),
      { timeout: 60_000 },
    );
    // The session exists in that server, not in the page.
    const status = await text(page, '#status');
    const id = /session (\S+): DONE/.exec(status)?.[1];
    expect(id, status).toBeDefined();
    const org = mock.api.state.org(mock.api.info.organizations[0]!.id);
    expect(org.session(id as string)).toBeDefined();
    await page.screenshot({ path: join(SHOTS, 'scored-remote.png'), fullPage: true });
    await page.close();
  });

  it('a create refused cross-origin (CORS) reads as what the page cannot tell from a lost connection, with what to check', async () => {
    const strict = await startMockServer({
      port: 0,
      cors: { origins: ['https://elsewhere.example'] },
    });
    try {
      const page = await openPage();
      const rep = strict.info.repEmails[0] ?? '';
      await page.$eval('#email', (e) => {
        (e as HTMLInputElement).value = '';
      });
      await page.type('#email', rep);
      await chooseFile(page, 'refused.srt', call(rep));
      await page.click('input[name=target][value=url]');
      await page.type('#base-url', strict.url);
      await page.type('#api-key', strict.info.apiKey ?? '');
      await page.click('#upload');
      await page.waitForFunction(
        () => /upload failed/.test(document.getElementById('status')?.innerText ?? ''),
        { timeout: 60_000 },
      );
      const status = await text(page, '#status');
      const origin = new URL(siteUrl).origin;
      expect(status).toContain('refused (CORS) fails the same way in a browser');
      expect(status).toContain(`rcs mock --cors-origin ${origin}`);
      await page.close();
    } finally {
      await strict.close();
    }
  });

  it('a traced page reaches an `rcs mock` on another origin (its preflight allows traceparent and tracestate, D26)', async () => {
    const page = await browser.newPage();
    await page.goto(`${siteUrl}tracing.html`, { waitUntil: 'load' });
    await page.waitForSelector('body[data-tracing="ready"]', { timeout: 30_000 });
    const records = await page.evaluate(
      (url, key) =>
        (window as unknown as { traceRemote(u: string, k: string): Promise<number> }).traceRemote(
          url,
          key,
        ),
      mock.url,
      mock.info.apiKey ?? '',
    );
    expect(records).toBe(5);
    await page.close();
  });

  it("the SDK's spans in the browser: a pagination span, a CLIENT span per page, each request carrying its span's traceparent", async () => {
    const page = await browser.newPage();
    await page.goto(`${siteUrl}tracing.html`, { waitUntil: 'load' });
    await page.waitForSelector('body[data-tracing="ready"]', { timeout: 30_000 });
    const run = (await page.evaluate(() =>
      (window as unknown as { traceExport(): Promise<unknown> }).traceExport(),
    )) as {
      records: number;
      seen: (string | null)[];
      spans: {
        name: string;
        kind: number;
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        attributes: Record<string, unknown>;
      }[];
    };
    expect(run.records).toBeGreaterThan(25);
    const pagination = run.spans.find((s) => s.name === 'rcs.export users');
    expect(pagination?.attributes['rcs.export.records']).toBe(run.records);
    const requests = run.spans.filter((s) => s.parentSpanId === pagination?.spanId);
    expect(requests.length).toBe(pagination?.attributes['rcs.export.pages']);
    for (const s of requests) {
      expect(s.name).toBe('GET /api/v1/data-exports/users');
      expect(s.kind).toBe(2); // CLIENT in @opentelemetry/api's SpanKind
      expect(s.attributes['http.response.status_code']).toBe(200);
      expect(s.attributes['url.full']).toMatch(/\/api\/v1\/data-exports\/users\?/);
    }
    expect([...run.seen].sort()).toEqual(
      requests.map((s) => `00-${s.traceId}-${s.spanId}-01`).sort(),
    );
    await page.close();
  });
});

// The setup whose spans the test above checks in Chromium is the one the client README gives a
// browser app, verbatim.
it('the client README shows the browser OpenTelemetry setup that runs in this page', () => {
  const setup = /\/\/ #region browser-setup[^\n]*\n([\s\S]*?)\/\/ #endregion/.exec(
    readFileSync(join(HERE, 'src/tracing.ts'), 'utf8'),
  )?.[1];
  expect(setup).toMatch(/StackContextManager[\s\S]*BatchSpanProcessor/);
  expect(readFileSync(join(REPO, 'packages/client/README.md'), 'utf8')).toContain(setup);
});
