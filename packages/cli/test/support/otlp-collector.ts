import { createServer, type Server } from 'node:http';
import protobuf from 'protobufjs';

/**
 * A loopback OTLP/HTTP trace collector for tests: it takes `POST /v1/traces` in both
 * protocols, http/protobuf (decoded with protobufjs over the OTLP trace messages, declared below
 * from opentelemetry-proto's trace.proto and common.proto) and http/json, and gives the spans back
 * in one plain shape. `raw` keeps every body as received, to look for secrets in it.
 */

export interface CollectedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  events: { name: string; attributes: Record<string, unknown> }[];
  status: { code: number; message?: string };
  resource: Record<string, unknown>;
  /** When it started, in nanoseconds since the epoch. */
  startNs: bigint;
}

const keyValue = { key: { type: 'string', id: 1 }, value: { type: 'AnyValue', id: 2 } };
const OTLP = protobuf.Root.fromJSON({
  nested: {
    ExportTraceServiceRequest: {
      fields: { resourceSpans: { rule: 'repeated', type: 'ResourceSpans', id: 1 } },
    },
    ResourceSpans: {
      fields: {
        resource: { type: 'Resource', id: 1 },
        scopeSpans: { rule: 'repeated', type: 'ScopeSpans', id: 2 },
      },
    },
    Resource: { fields: { attributes: { rule: 'repeated', type: 'KeyValue', id: 1 } } },
    ScopeSpans: { fields: { spans: { rule: 'repeated', type: 'Span', id: 2 } } },
    Span: {
      fields: {
        traceId: { type: 'bytes', id: 1 },
        spanId: { type: 'bytes', id: 2 },
        parentSpanId: { type: 'bytes', id: 4 },
        name: { type: 'string', id: 5 },
        kind: { type: 'int32', id: 6 },
        startTimeUnixNano: { type: 'fixed64', id: 7 },
        attributes: { rule: 'repeated', type: 'KeyValue', id: 9 },
        events: { rule: 'repeated', type: 'Event', id: 11 },
        status: { type: 'Status', id: 15 },
      },
    },
    Event: {
      fields: {
        name: { type: 'string', id: 2 },
        attributes: { rule: 'repeated', type: 'KeyValue', id: 3 },
      },
    },
    Status: { fields: { message: { type: 'string', id: 2 }, code: { type: 'int32', id: 3 } } },
    KeyValue: { fields: keyValue },
    AnyValue: {
      oneofs: {
        value: {
          oneof: [
            'stringValue',
            'boolValue',
            'intValue',
            'doubleValue',
            'arrayValue',
            'kvlistValue',
            'bytesValue',
          ],
        },
      },
      fields: {
        stringValue: { type: 'string', id: 1 },
        boolValue: { type: 'bool', id: 2 },
        intValue: { type: 'int64', id: 3 },
        doubleValue: { type: 'double', id: 4 },
        arrayValue: { type: 'ArrayValue', id: 5 },
        kvlistValue: { type: 'KeyValueList', id: 6 },
        bytesValue: { type: 'bytes', id: 7 },
      },
    },
    ArrayValue: { fields: { values: { rule: 'repeated', type: 'AnyValue', id: 1 } } },
    KeyValueList: { fields: { values: { rule: 'repeated', type: 'KeyValue', id: 1 } } },
  },
}).lookupType('ExportTraceServiceRequest');

// biome-ignore lint/suspicious/noExplicitAny: OTLP's JSON, read field by field
type Json = any;

function anyValue(v: Json): unknown {
  if (!v) return undefined;
  if ('stringValue' in v) return v.stringValue;
  if ('boolValue' in v) return v.boolValue;
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return Number(v.doubleValue);
  if ('arrayValue' in v) return (v.arrayValue.values ?? []).map(anyValue);
  return undefined;
}

function attributesOf(list: Json[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((kv: Json) => [kv.key, anyValue(kv.value)]));
}

/** A fixed64 as protobuf.js (a decimal string with longs: String) or OTLP JSON gives it. */
function nanos(v: Json): bigint {
  if (v === undefined || v === null) return 0n;
  if (typeof v === 'object') return (BigInt(v.high >>> 0) << 32n) | BigInt(v.low >>> 0);
  return BigInt(v);
}

const hex = (id: unknown) =>
  typeof id === 'string' ? id : id ? Buffer.from(id as Uint8Array).toString('hex') : '';

/** The spans of one ExportTraceServiceRequest (its protobuf bytes, or its JSON text). */
export function spansOf(body: Buffer, protocol: 'protobuf' | 'json'): CollectedSpan[] {
  const request: Json =
    protocol === 'json'
      ? JSON.parse(body.toString('utf8'))
      : OTLP.toObject(OTLP.decode(body), { longs: String, defaults: false });
  const out: CollectedSpan[] = [];
  for (const rs of request.resourceSpans ?? []) {
    const resource = attributesOf(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        out.push({
          traceId: hex(s.traceId),
          spanId: hex(s.spanId),
          parentSpanId: hex(s.parentSpanId),
          name: s.name,
          kind: Number(s.kind ?? 0),
          attributes: attributesOf(s.attributes),
          events: (s.events ?? []).map((e: Json) => ({
            name: e.name,
            attributes: attributesOf(e.attributes),
          })),
          status: { code: Number(s.status?.code ?? 0), message: s.status?.message },
          resource,
          startNs: nanos(s.startTimeUnixNano),
        });
      }
    }
  }
  return out;
}

export interface Collector {
  url: string;
  spans: CollectedSpan[];
  /** Every body as received, its content type and the Authorization header it came with. */
  raw: { contentType: string; authorization: string | undefined; body: Buffer }[];
  /** Forgets what was received so far (a new test). */
  clear(): void;
  close(): Promise<void>;
}

export async function startCollector(): Promise<Collector> {
  const spans: CollectedSpan[] = [];
  const raw: Collector['raw'] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const contentType = String(req.headers['content-type'] ?? '');
      raw.push({ contentType, authorization: req.headers.authorization, body });
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      const json = contentType.startsWith('application/json');
      spans.push(...spansOf(body, json ? 'json' : 'protobuf'));
      res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' });
      res.end(json ? '{}' : '');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    raw,
    clear: () => {
      spans.length = 0;
      raw.length = 0;
    },
    close: () => new Promise((r) => server.close(() => r())),
  };
}
