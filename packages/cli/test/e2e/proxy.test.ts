import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { join } from 'node:path';
import { type MockServer, startMockServer } from '@rcs/mock/node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ConnectProxy, startConnectProxy } from '../../../../test/support/connect-proxy.js';
import { assertBuilt, labeledCall, readLedger, runCli, tempDir } from './helpers.js';

// cli.md "Networks", over real processes on loopback only: a CONNECT proxy written
// here tunnels to an HTTPS server with a certificate made here by openssl, which forwards to the
// mock. The base URL's host resolves nowhere (.invalid), so only a run through the proxy passes.

const HOST = 'api.rcs.invalid';
const BASE = `https://${HOST}`;

let mock: MockServer;
let tls: HttpsServer;
let tlsPort = 0;
let dir = '';
let caFile = '';
let key = '';
let rep = '';

/** A certificate authority, and a server certificate for HOST signed by it (openssl). */
function makeCertificates(at: string): { key: Buffer; cert: Buffer; ca: string } {
  const run = (args: string[]) => execFileSync('openssl', args, { cwd: at, stdio: 'pipe' });
  run(
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=rcs test CA',
    ].concat(['-keyout', 'ca.key', '-out', 'ca.pem']),
  );
  run(
    ['req', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=${HOST}`].concat([
      '-keyout',
      'server.key',
      '-out',
      'server.csr',
    ]),
  );
  writeFileSync(join(at, 'san.ext'), `subjectAltName=DNS:${HOST}\n`);
  run(
    ['x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key'].concat([
      '-CAcreateserial',
      '-days',
      '2',
      '-extfile',
      'san.ext',
      '-out',
      'server.pem',
    ]),
  );
  return {
    key: readFileSync(join(at, 'server.key')),
    cert: readFileSync(join(at, 'server.pem')),
    ca: join(at, 'ca.pem'),
  };
}

/** A port where nothing listens: a proxy that is configured but dead. */
async function deadPort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

let proxy: ConnectProxy;

/**
 * A proxy that misbehaves: `drop` accepts each CONNECT and closes it, `silent`
 * never answers, `407` asks for credentials. It counts the CONNECTs and keeps their headers.
 */
async function badProxy(mode: 'drop' | 'silent' | '407') {
  const connects: string[] = [];
  /** When each CONNECT came (ms, monotonic). */
  const connectedAt: number[] = [];
  const authorizations: (string | undefined)[] = [];
  const server: TcpServer = createTcpServer((socket) => {
    socket.on('error', () => {});
    socket.once('data', (head: Buffer) => {
      const text = head.toString('latin1');
      connects.push(text.split(' ')[1] ?? '');
      connectedAt.push(performance.now());
      authorizations.push(/^proxy-authorization: (.*)$/im.exec(text)?.[1]?.trim());
      if (mode === 'drop') socket.destroy();
      if (mode === '407') {
        socket.end(
          'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="corp"\r\nContent-Length: 0\r\n\r\n',
        );
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const hostPort = `127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    hostPort,
    url: `http://${hostPort}`,
    connects,
    connectedAt,
    authorizations,
    close: () => {
      server.close();
    },
  };
}

beforeAll(async () => {
  assertBuilt();
  dir = tempDir('rcs-proxy-');
  mock = await startMockServer({ port: 0, processingMs: 0 });
  key = mock.info.apiKey ?? '';
  rep = mock.info.repEmails[0] ?? '';
  const certs = makeCertificates(dir);
  caFile = certs.ca;
  const upstream = new URL(mock.url);
  // TLS in front of the mock: forwards each request as it came.
  tls = createHttpsServer({ key: certs.key, cert: certs.cert }, (req, res) => {
    const forward = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((r) => tls.listen(0, '127.0.0.1', r));
  tlsPort = (tls.address() as { port: number }).port;
  proxy = await startConnectProxy(() => tlsPort);
});

afterAll(async () => {
  proxy?.close();
  tls?.closeAllConnections();
  tls?.close();
  await mock?.close();
});

beforeEach(() => {
  proxy.connects.length = 0;
});

function run(args: string[], env: Record<string, string | undefined>, cwd = tempDir('rcs-px-')) {
  return runCli(args, {
    cwd,
    env: { RCS_BASE_URL: BASE, RCS_API_KEY: key, NODE_EXTRA_CA_CERTS: caFile, ...env },
  });
}

describe('through an HTTPS proxy (CONNECT)', () => {
  it('HTTPS_PROXY: export runs through the proxy to a host only the proxy can reach', async () => {
    const r = await run(['export', 'teams', '--out', 'out'], { HTTPS_PROXY: proxy.url });
    expect(r.code, r.stderr).toBe(0);
    expect(proxy.connects.map((c) => c.target)).toContain(`${HOST}:443`);
  });

  it('the lower-case variable wins over the upper-case one (curl)', async () => {
    const dead = await deadPort();
    const r = await run(['export', 'teams', '--out', 'out'], {
      HTTPS_PROXY: `http://127.0.0.1:${dead}`,
      https_proxy: proxy.url,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(proxy.connects.length).toBeGreaterThan(0);
  });

  it('NO_PROXY: a matching domain suffix goes direct (and fails fast: the name resolves nowhere); another does not match', async () => {
    const direct = await run(['export', 'teams', '--out', 'out'], {
      HTTPS_PROXY: proxy.url,
      NO_PROXY: 'example.com,.rcs.invalid',
    });
    expect(direct.code).toBe(1);
    expect(direct.stderr).toMatch(/could not reach the service: .*(ENOTFOUND|EAI_AGAIN)/);
    expect(proxy.connects).toHaveLength(0);
    const proxied = await run(['export', 'teams', '--out', 'out'], {
      HTTPS_PROXY: proxy.url,
      no_proxy: 'example.com,other.invalid:443',
    });
    expect(proxied.code, proxied.stderr).toBe(0);
    expect(proxy.connects.length).toBeGreaterThan(0);
  });

  it('proxy credentials are sent to the proxy and appear in no output of a -v run, ledger and manifest included', async () => {
    const secret = 's3cret-proxy-pass';
    const withAuth = proxy.url.replace('http://', `http://proxyuser:${secret}@`);
    const cwd = tempDir('rcs-px-');
    writeFileSync(join(cwd, 'call.srt'), labeledCall(rep, 1));
    const up = await run(
      ['-v', 'upload', 'call.srt', '--email', rep],
      { HTTPS_PROXY: withAuth },
      cwd,
    );
    expect(up.code, up.stderr).toBe(0);
    const ex = await run(['-v', 'export', 'users', '--out', 'out'], { HTTPS_PROXY: withAuth }, cwd);
    expect(ex.code, ex.stderr).toBe(0);
    const expected = `Basic ${Buffer.from(`proxyuser:${secret}`).toString('base64')}`;
    expect(proxy.connects.length).toBeGreaterThan(0);
    for (const c of proxy.connects) expect(c.headers['proxy-authorization']).toBe(expected);
    // --verbose names the proxy, without its credentials.
    expect(up.stderr).toContain(`proxy: https via ${proxy.url}`);
    const everything = [
      up.stdout,
      up.stderr,
      ex.stdout,
      ex.stderr,
      readFileSync(join(cwd, '.rcs-ledger.jsonl'), 'utf8'),
      readFileSync(join(cwd, 'out', 'manifest.json'), 'utf8'),
    ].join('\n');
    expect(everything).not.toContain(secret);
    expect(everything).not.toContain(Buffer.from(`proxyuser:${secret}`).toString('base64'));
  });

  it('loopback never goes through a proxy: the mock works while a dead proxy is configured', async () => {
    const dead = `http://127.0.0.1:${await deadPort()}`;
    for (const base of [mock.url, mock.url.replace('127.0.0.1', 'localhost')]) {
      const r = await run(['export', 'teams', '--out', 'out'], {
        RCS_BASE_URL: base,
        HTTPS_PROXY: dead,
        HTTP_PROXY: dead,
        http_proxy: dead,
      });
      expect(r.code, `${base}: ${r.stderr}`).toBe(0);
    }
  });

  it('an untrusted certificate fails after one CONNECT, long before the deadline, naming NODE_EXTRA_CA_CERTS', async () => {
    const r = await run(['export', 'teams', '--out', 'out'], {
      HTTPS_PROXY: proxy.url,
      NODE_EXTRA_CA_CERTS: undefined,
    });
    expect(r.code).toBe(1);
    expect(proxy.connects).toHaveLength(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(
      /the TLS certificate of api\.rcs\.invalid is signed by a certificate authority this machine does not trust \(\w+\); not retried.*NODE_EXTRA_CA_CERTS=\/path\/to\/company-ca\.pem/,
    );
  });

  it('a malformed proxy variable is a usage error naming the variable', async () => {
    const r = await run(['export', 'teams', '--out', 'out'], { HTTPS_PROXY: 'not a url' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/HTTPS_PROXY is not a URL/);
  });
});

// Without a proxy, the CLI sends over the same undici stack as through one: the same
// trust (NODE_EXTRA_CA_CERTS), the same one-line certificate errors, never retried.
describe('direct HTTPS, no proxy', () => {
  let direct: HttpsServer;
  let directUrl = '';
  let handshakes = 0;

  beforeAll(async () => {
    const run = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
    run(
      ['req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost'].concat([
        '-keyout',
        'local.key',
        '-out',
        'local.csr',
      ]),
    );
    writeFileSync(join(dir, 'local.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
    run(
      ['x509', '-req', '-in', 'local.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key'].concat([
        '-CAcreateserial',
        '-days',
        '2',
        '-extfile',
        'local.ext',
        '-out',
        'local.pem',
      ]),
    );
    direct = createHttpsServer(
      { key: readFileSync(join(dir, 'local.key')), cert: readFileSync(join(dir, 'local.pem')) },
      tls.listeners('request')[0] as Parameters<typeof createHttpsServer>[1],
    );
    direct.on('secureConnection', () => handshakes++);
    direct.on('tlsClientError', () => handshakes++);
    await new Promise<void>((r) => direct.listen(0, '127.0.0.1', r));
    directUrl = `https://127.0.0.1:${(direct.address() as { port: number }).port}`;
  });

  afterAll(() => {
    direct?.closeAllConnections();
    direct?.close();
  });

  it('a certificate signed by NODE_EXTRA_CA_CERTS: upload and export work', async () => {
    const cwd = tempDir('rcs-tls-');
    writeFileSync(join(cwd, 'call.srt'), labeledCall(rep, 2));
    const up = await run(['upload', 'call.srt', '--email', rep], { RCS_BASE_URL: directUrl }, cwd);
    expect(up.code, up.stderr).toBe(0);
    const ex = await run(['export', 'users', '--out', 'out'], { RCS_BASE_URL: directUrl }, cwd);
    expect(ex.code, ex.stderr).toBe(0);
    const manifest = JSON.parse(readFileSync(join(cwd, 'out', 'manifest.json'), 'utf8'));
    expect(manifest.resources[0].count).toBeGreaterThan(0);
  });

  it('an untrusted certificate: one line naming NODE_EXTRA_CA_CERTS, one handshake, not retried', async () => {
    handshakes = 0;
    const r = await run(['export', 'teams', '--out', 'out'], {
      RCS_BASE_URL: directUrl,
      NODE_EXTRA_CA_CERTS: undefined,
    });
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(
      /the TLS certificate of 127\.0\.0\.1:\d+ is signed by a certificate authority this machine does not trust \(\w+\); not retried.*NODE_EXTRA_CA_CERTS=/,
    );
    expect(handshakes).toBe(1);
  });

  it('a certificate for another host name says so', async () => {
    const r = await run(['export', 'teams', '--out', 'out'], {
      RCS_BASE_URL: `https://127.0.0.1:${tlsPort}`,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /the TLS certificate of 127\.0\.0\.1:\d+ was issued for another host name \(\w+\); not retried; check the base URL/,
    );
  });
});

/** The reason in the one line of a failed `export teams`. */
function failed(r: { stderr: string }) {
  const lines = r.stderr.trim().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  return /^rcs: export teams failed: (.*); files in .* were left as they were$/.exec(
    lines[0] ?? '',
  )?.[1];
}

// A proxy that drops, never answers, wants credentials or is not there. Each run
// ends with one line naming the proxy (never its credentials), and the process exits.
describe('a proxy that misbehaves', () => {
  it('accepts each CONNECT and closes it: retried with backoff within the deadline, then one line', async () => {
    const bad = await badProxy('drop');
    try {
      const r = await run(['export', 'teams', '--out', 'out'], {
        HTTPS_PROXY: bad.url,
        RCS_NETWORK_TIMEOUT: '4',
      });
      expect(r.code).toBe(1);
      expect(failed(r)).toBe(
        `the proxy ${bad.url} (HTTPS_PROXY) closed the connection instead of opening a tunnel to ${HOST}:443; check HTTPS_PROXY and NO_PROXY, or ask the proxy's administrator`,
      );
      // Retried (more than one CONNECT), and not a flood: the export's retry budget at most.
      expect(bad.connects.length).toBeGreaterThan(1);
      expect(bad.connects.length).toBeLessThanOrEqual(9);
      expect(bad.connects.every((c) => c === `${HOST}:443`)).toBe(true);
    } finally {
      bad.close();
    }
  });

  it('never answers: the run ends at the deadline with one line, and the process exits', async () => {
    const bad = await badProxy('silent');
    try {
      const r = await run(['export', 'teams', '--out', 'out'], {
        HTTPS_PROXY: bad.url,
        RCS_NETWORK_TIMEOUT: '2',
      });
      expect(r.code).toBe(1);
      expect(failed(r)).toBe(
        `no answer within 2 s from ${BASE}/api/v1/data-exports/teams?page=1&limit=100 through the proxy ${bad.url} (HTTPS_PROXY); check your network and the proxy, or allow longer with --timeout SECONDS (or RCS_NETWORK_TIMEOUT)`,
      );
    } finally {
      bad.close();
    }
  });

  it('answers 407: "the proxy asked for credentials (407)", final after one CONNECT', async () => {
    const bad = await badProxy('407');
    try {
      const r = await run(['export', 'teams', '--out', 'out'], { HTTPS_PROXY: bad.url });
      expect(r.code).toBe(1);
      expect(failed(r)).toBe(
        `the proxy asked for credentials (407): add them to HTTPS_PROXY as user:password@ before the proxy's host (${bad.url})`,
      );
      expect(bad.connects).toHaveLength(1);
    } finally {
      bad.close();
    }
  });

  it('answers 407 to credentials given without a scheme (user:secret@host:port): they were sent, and are never shown', async () => {
    const bad = await badProxy('407');
    const secret = 'pr0xy-s3cret';
    try {
      const r = await run(['-v', 'export', 'teams', '--out', 'out'], {
        https_proxy: `alice:${secret}@${bad.hostPort}`,
      });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        `rcs: export teams failed: the proxy asked for credentials (407) and refused those in https_proxy (${bad.url}); check the user name and password`,
      );
      expect(bad.authorizations).toEqual([
        `Basic ${Buffer.from(`alice:${secret}`).toString('base64')}`,
      ]);
      const output = r.stdout + r.stderr;
      expect(output).not.toContain(secret);
      expect(output).not.toContain(Buffer.from(`alice:${secret}`).toString('base64'));
      expect(output).not.toContain('alice');
    } finally {
      bad.close();
    }
  });

  it('is refused: the line names the proxy and its variable, not --base-url', async () => {
    const port = await deadPort();
    const r = await run(['export', 'teams', '--out', 'out'], {
      HTTPS_PROXY: `http://127.0.0.1:${port}`,
    });
    expect(r.code).toBe(1);
    expect(failed(r)).toBe(
      `could not connect to the proxy http://127.0.0.1:${port} (HTTPS_PROXY): connection refused (ECONNREFUSED); check that the proxy runs and that HTTPS_PROXY is its address`,
    );
  });
});

// cli.md "Networks": `--timeout SECONDS` is the deadline of every request on the commands that
// do not wait for DONE (the flag wins over RCS_NETWORK_TIMEOUT, set here to 10 minutes so that
// only the flag can end the run: waiting for that deadline would outlast the test's own); on
// `sessions wait` and `upload --wait` it is the wait, and no request runs past it either. Each
// line says which deadline ended it ("no answer within 2 s").
describe('--timeout SECONDS: the deadline of every request, the proxy included', () => {
  const LONG = { RCS_NETWORK_TIMEOUT: '600' };
  const ID = '3f2a9c1e-5b7d-4e8f-9a0b-1c2d3e4f5a6b';

  /** `rcs ARGS` through a proxy that misbehaves (`mode`); the proxy's record with it. */
  async function through(mode: 'silent' | 'drop', args: string[], cwd?: string) {
    const proxy = await badProxy(mode);
    try {
      const r = await run(args, { HTTPS_PROXY: proxy.url, ...LONG }, cwd);
      return { ...r, proxy };
    } finally {
      proxy.close();
    }
  }

  it('export all, a proxy that never answers CONNECT: one line at the deadline naming the URL and the proxy, exit 1', async () => {
    const r = await through('silent', ['export', 'all', '--out', 'out', '--timeout', '2']);
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split('\n');
    expect(lines, r.stderr).toHaveLength(1);
    // The export that failed is named (the first one: the exports run one after another).
    const resource = /^rcs: export ([a-z-]+) failed: /.exec(lines[0] ?? '')?.[1];
    expect(lines[0]).toBe(
      `rcs: export ${resource} failed: no answer within 2 s from ${BASE}/api/v1/data-exports/${resource}?page=1&limit=100 through the proxy ${r.proxy.url} (HTTPS_PROXY); check your network and the proxy, or allow longer with --timeout SECONDS (or RCS_NETWORK_TIMEOUT); files in out were left as they were`,
    );
  }, 60_000);

  it('export all, a proxy that closes each CONNECT at once: one line naming the proxy, exit 1, a handful of CONNECTs a second', async () => {
    const r = await through('drop', ['export', 'all', '--out', 'out', '--timeout', '2']);
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split('\n');
    expect(lines, r.stderr).toHaveLength(1);
    // Whichever ends it first, the retry budget or the deadline, the line names the proxy.
    expect(lines[0]).toMatch(
      new RegExp(
        `^rcs: export [a-z-]+ failed: .*the proxy ${r.proxy.url.replace(/\./g, '\\.')} \\(HTTPS_PROXY\\).*; files in out were left as they were$`,
      ),
    );
    // Retried with backoff, never a flood (the bug: thousands a second).
    expect(r.proxy.connects.length).toBeGreaterThan(1);
    // At most a handful in any one second (a run shorter than a second is not a rate).
    const times = r.proxy.connectedAt;
    const inSecondFrom = (t: number) => times.filter((u) => u >= t && u < t + 1_000).length;
    expect(Math.max(...times.map(inSecondFrom)), times.join(', ')).toBeLessThanOrEqual(5);
  }, 60_000);

  it('sessions get: the same deadline, the same line', async () => {
    const r = await through('silent', ['sessions', 'get', ID, '--timeout', '1']);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n'), r.stderr).toEqual([
      `rcs: no answer within 1 s from ${BASE}/api/v1/real-call-sessions/${ID} through the proxy ${r.proxy.url} (HTTPS_PROXY); check your network and the proxy, or allow longer with --timeout SECONDS (or RCS_NETWORK_TIMEOUT)`,
    ]);
  }, 60_000);

  it('sessions wait: --timeout is the wait for DONE (exit 5), and a read in flight ends with it', async () => {
    for (const mode of ['silent', 'drop'] as const) {
      const r = await through(mode, ['sessions', 'wait', ID, '--timeout', '2']);
      expect(r.code, `${mode}: ${r.stderr}`).toBe(5);
      const lines = r.stderr.trim().split('\n');
      expect(lines, r.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(
        new RegExp(
          `^rcs: session ${ID}: the service could not be read within 2 s \\(.+\\); wait again later with \`rcs sessions wait ${ID}\`$`,
        ),
      );
      if (mode === 'drop') expect(lines[0]).toContain(`the proxy ${r.proxy.url} (HTTPS_PROXY)`);
    }
  }, 90_000);

  it('upload --wait: no request runs past --timeout either; a create cut while the proxy never opened its tunnel was never sent', async () => {
    const cwd = tempDir('rcs-px-');
    writeFileSync(join(cwd, 'call.srt'), labeledCall(rep, 3));
    const r = await through(
      'silent',
      ['upload', 'call.srt', '--email', rep, '--wait', '--timeout', '2'],
      cwd,
    );
    expect(r.code, r.stderr).toBe(1);
    // The tunnel never opened, so the POST never left this machine: a failure that a re-run
    // sends again, not an unknown outcome to look up.
    expect(r.stderr).toContain(
      `rcs: call.srt: no answer within 2 s from ${BASE}/api/v1/real-call-sessions through the proxy ${r.proxy.url} (HTTPS_PROXY)`,
    );
    expect(r.stderr).not.toContain('outcome is unknown');
    expect(readLedger(join(cwd, '.rcs-ledger.jsonl')).map((l) => l.status)).toEqual(['failed']);
  }, 60_000);

  it('a --timeout that is not a number of seconds is a usage error (exit 2) naming the flag, before any request', async () => {
    const bad = await badProxy('silent');
    const cwd = tempDir('rcs-px-');
    writeFileSync(join(cwd, 'call.srt'), labeledCall(rep, 4));
    try {
      for (const [args, value] of [
        [['export', 'all', '--out', 'out', '--timeout', '0'], '0'],
        [['sessions', 'get', ID, '--timeout', 'soon'], 'soon'],
        [['sessions', 'wait', ID, '--timeout', '90000'], '90000'],
        [['upload', 'call.srt', '--email', rep, '--timeout', '5s'], '5s'],
      ] as const) {
        const r = await run([...args], { HTTPS_PROXY: bad.url }, cwd);
        expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
        expect(r.stderr.trim().split('\n')).toHaveLength(1);
        expect(r.stderr).toContain(
          `--timeout must be a number of seconds greater than 0 and at most 86400 (a day), got "${value}"`,
        );
      }
      expect(bad.connects).toHaveLength(0);
      expect(existsSync(join(cwd, '.rcs-ledger.jsonl'))).toBe(false);
    } finally {
      bad.close();
    }
  }, 60_000);
});

describe('a proxy variable without a scheme means http:// (curl)', () => {
  it('HTTPS_PROXY=host:port and user:secret@host:port both work; the secret is never shown', async () => {
    const hostPort = proxy.url.replace('http://', '');
    const plain = await run(['export', 'teams', '--out', 'out'], { HTTPS_PROXY: hostPort });
    expect(plain.code, plain.stderr).toBe(0);
    expect(proxy.connects.length).toBeGreaterThan(0);
    proxy.connects.length = 0;
    const secret = 'n0-sch3me-secret';
    const withAuth = await run(['-v', 'export', 'teams', '--out', 'out'], {
      HTTPS_PROXY: `bob:${secret}@${hostPort}`,
    });
    expect(withAuth.code, withAuth.stderr).toBe(0);
    expect(proxy.connects[0]?.headers['proxy-authorization']).toBe(
      `Basic ${Buffer.from(`bob:${secret}`).toString('base64')}`,
    );
    expect(withAuth.stderr).toContain(`[rcs] proxy: https via ${proxy.url}`);
    expect(withAuth.stdout + withAuth.stderr).not.toContain(secret);
  });
});

// An https:// base URL whose port speaks plain HTTP.
describe('https:// to a plain-http port', () => {
  it("says the server speaks plain http and which URL to use, not OpenSSL's words", async () => {
    const origin = new URL(mock.url);
    const r = await run(['export', 'teams', '--out', 'out'], {
      RCS_BASE_URL: `https://127.0.0.1:${origin.port}`,
    });
    expect(r.code).toBe(1);
    expect(failed(r)).toBe(
      `this server speaks plain http; use http://127.0.0.1:${origin.port} in RCS_BASE_URL (https://127.0.0.1:${origin.port} answered without TLS)`,
    );
    expect(r.stderr).not.toMatch(/tlsany_meth|EPROTO|wrong version number/);
  });
});
