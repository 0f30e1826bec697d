/**
 * openapi.yaml read against api-description.md and decisions.md, field by field: required
 * lists, enums, patterns (verbatim from the description's text), nullability, defaults and
 * formats. Patterns are taken from the description file itself, not retyped here.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

// biome-ignore lint/suspicious/noExplicitAny: the parsed YAML is walked freely
type Json = any;
const doc: Json = parse(
  readFileSync(fileURLToPath(new URL('../../openapi.yaml', import.meta.url)), 'utf8'),
);
const description = readFileSync(
  fileURLToPath(new URL('../../docs/api-description.md', import.meta.url)),
  'utf8',
);
const S = doc.components.schemas;

/** The n-th backticked `^…$` pattern of the description that contains `needle`. */
const patternFromDescription = (needle: string): string => {
  const found = [...description.matchAll(/`(\^[^`]+\$)`/g)].map((m) => m[1] as string);
  const p = found.find((x) => x.includes(needle));
  if (!p) throw new Error(`no pattern with ${needle} in the description`);
  return p;
};

const deref = (node: Json): Json => {
  let n = node;
  while (n?.$ref) {
    n = n.$ref
      .replace('#/', '')
      .split('/')
      .reduce((cur: Json, k: string) => cur[k], doc);
  }
  return n;
};
const prop = (schema: string, name: string): Json => deref(S[schema].properties[name]);
const types = (node: Json): string[] => [node.type].flat().filter(Boolean);
const nullable = (node: Json) => types(deref(node)).includes('null');

describe('patterns are the description text, verbatim', () => {
  it('request email', () => {
    expect(prop('CreateRealCallSessionRequest', 'email').pattern).toBe(
      patternFromDescription("A-Za-z0-9_'+"),
    );
  });
  it("sessionId path parameter: format uuid, D25 (which widens the description's pattern)", () => {
    const schema = doc.components.parameters.SessionId.schema;
    expect(schema.format).toBe('uuid');
    const d25 = new RegExp(schema.pattern);
    const described = new RegExp(patternFromDescription('[89abAB]'));
    for (const id of [
      '9b2d7c4e-1f3a-4b5c-8d6e-7f8091a2b3c4',
      '00000000-0000-0000-0000-000000000000',
      '9B2D7C4E-1F3A-4B5C-8D6E-7F8091A2B3C4',
    ]) {
      expect(described.test(id) && d25.test(id), id).toBe(true);
    }
    // D25: any version and variant.
    expect(d25.test('9b2d7c4e-1f3a-0b5c-7d6e-7f8091a2b3c4')).toBe(true);
    expect(d25.test('9b2d7c4e1f3a-0b5c-7d6e-7f8091a2b3c4')).toBe(false);
  });
  it('24-hex ids (missionId, scorecardId, Hex24)', () => {
    const hex = patternFromDescription('[0-9a-f]{24}');
    expect(prop('CreateRealCallSessionRequest', 'missionId').pattern).toBe(hex);
    expect(prop('CreateRealCallSessionRequest', 'scorecardId').pattern).toBe(hex);
    expect(S.Hex24.pattern).toBe(hex);
    expect(S.RealCallSessionExportRecord.properties.missionId.pattern).toBe(hex);
  });
  it('memory label slug and organization name', () => {
    expect(S.MemoryEntry.properties.label.pattern).toBe(patternFromDescription('(-[a-z0-9]+)*'));
    expect(S.OrganizationCreateRequest.properties.name.pattern).toBe(
      patternFromDescription('a-zA-Z0-9_ '),
    );
  });
});

describe('required lists as the description gives them', () => {
  const cases: [string, string[]][] = [
    [
      'RealCallSession',
      [
        'id',
        'createdAt',
        'lastUpdatedAt',
        'userId',
        'call',
        'analysis',
        'kpis',
        'language',
        'state',
        'completed',
        'type',
      ],
    ],
    ['Call', ['id', 'createdAt', 'lastUpdatedAt', 'assistantReferenceId', 'state']],
    ['Analysis', ['id', 'createdAt', 'lastUpdatedAt', 'state', 'items', 'score']],
    ['AnalysisItem', ['id', 'createdAt', 'lastUpdatedAt', 'state', 'score']],
    ['Behaviour', ['evidence', 'verdict', 'score']],
    ['Kpis', ['id', 'createdAt', 'lastUpdatedAt', 'state']],
    ['ExportMeta', ['total', 'page', 'limit', 'hasNext']],
    [
      'RealCallSessionExportRecord',
      [
        'id',
        'createdAt',
        'lastUpdatedAt',
        'learnerUserId',
        'transcript',
        'language',
        'completed',
        'analysis',
      ],
    ],
    [
      'TrackAssignmentExportRecord',
      [
        'id',
        'createdAt',
        'lastUpdatedAt',
        'learnerUserId',
        'trackId',
        'startDate',
        'dueDate',
        'status',
        'completedAt',
        'completedMissionIds',
        'assignedByUserId',
        'sprintId',
      ],
    ],
    [
      'MissionAssignmentExportRecord',
      [
        'id',
        'createdAt',
        'lastUpdatedAt',
        'learnerUserId',
        'missionId',
        'startDate',
        'dueDate',
        'status',
        'completedAt',
        'assignedByUserId',
        'sprintId',
      ],
    ],
    [
      'SprintExportRecord',
      ['id', 'title', 'createdAt', 'lastUpdatedAt', 'userId', 'dueDate', 'assignedTeamId'],
    ],
    ['UserExportRecord', ['id', 'email', 'firstName', 'lastName', 'teamIds', 'createdAt']],
    ['TrackExportRecord', ['id', 'title', 'description', 'missionIds', 'archived']],
    ['ScorecardExportRecord', ['id', 'title', 'language']],
    ['MissionExportRecord', ['id', 'title', 'language']],
    ['TeamExportRecord', ['id', 'name']],
    ['CreateRealCallSessionRequest', ['transcript', 'meetingName']],
    [
      'ContentAssignment',
      [
        'id',
        'userId',
        'reference',
        'type',
        'state',
        'completedMissionIds',
        'createdAt',
        'lastUpdatedAt',
      ],
    ],
    ['MissionFeedbackCreateRequest', ['missionReferenceId', 'rating']],
    ['Problem', ['type', 'title', 'status', 'detail', 'code']],
  ];
  it.each(cases)('%s', (name, required) => {
    expect([...S[name].required].sort()).toEqual([...required].sort());
  });
  it('export item: name, solved, explanation, suggestion, itemScore', () => {
    const item = deref(S.RealCallSessionExportRecord.properties.analysis.properties.items.items);
    expect([...item.required].sort()).toEqual(
      ['explanation', 'itemScore', 'name', 'solved', 'suggestion'].sort(),
    );
  });
});

describe('enums', () => {
  it('languages, played languages and states', () => {
    expect(S.Language.enum).toEqual(['en', 'de', 'fr', 'es', 'it', 'nl', 'zh-Hans']);
    expect(S.PlayedLanguage.enum).toEqual([
      ...'en de fr es it nl pl zh ja id tr pt el ko vi hi ms th hr ro bg sv no yue'.split(' '),
      null,
    ]);
    expect(S.RealCallSession.properties.state.enum).toEqual(['PENDING', 'PROCESSING', 'DONE']);
    expect(S.RealCallSession.properties.type.enum).toEqual(['REAL_CALL']);
    expect(S.Call.properties.state.enum).toEqual([
      'PENDING',
      'DONE',
      'DATA-NOT-AVAILABLE',
      'CAN-NOT-PROCESS-TRANSCRIPT',
    ]);
    for (const n of ['Analysis', 'Kpis']) {
      expect(S[n].properties.state.enum).toEqual(['PENDING', 'PROCESSING', 'DONE', 'SKIPPED']);
    }
    expect(S.AnalysisItem.properties.state.enum).toEqual(['PROCESSING', 'DONE', 'ERROR']);
    expect(S.AnalysisItem.properties.solved.enum).toEqual([
      'undetected',
      'notSolved',
      'partlySolved',
      'solved',
      null,
    ]);
    const exportItem = deref(
      S.RealCallSessionExportRecord.properties.analysis.properties.items.items,
    );
    expect(exportItem.properties.solved.enum).toEqual(['notSolved', 'partlySolved', 'solved']);
    expect(nullable(exportItem.properties.solved)).toBe(false);
    expect(deref(S.TrackAssignmentExportRecord.properties.status).enum.sort()).toEqual([
      'completed',
      'open',
    ]);
  });
});

describe('nullability and optional fields', () => {
  it('session optional fields are nullable strings; participantUserIds an array of UUIDs', () => {
    for (const f of [
      'missionReferenceId',
      'missionTitle',
      'scorecardReferenceId',
      'scorecardTitle',
      'trackId',
      'trackTitle',
    ]) {
      expect(nullable(S.RealCallSession.properties[f]), f).toBe(true);
      expect(S.RealCallSession.required).not.toContain(f);
    }
    expect(nullable(S.RealCallSession.properties.participantUserIds)).toBe(false);
    expect(deref(S.RealCallSession.properties.participantUserIds.items).format).toBe('uuid');
    for (const f of ['endedReason', 'providerCallId', 'summary', 'transcript']) {
      expect(nullable(S.Call.properties[f]), f).toBe(true);
    }
    for (const f of [
      'name',
      'explanation',
      'suggestion',
      'conversationItemReferenceId',
      'solved',
    ]) {
      expect(nullable(S.AnalysisItem.properties[f]), f).toBe(true);
    }
    expect(S.AnalysisItem.properties.behaviours.default).toEqual([]);
    for (const f of ['listenRatio', 'longestMonologue', 'talkSpeed']) {
      expect(nullable(S.Kpis.properties[f]), f).toBe(true);
    }
  });
  it('export nullability', () => {
    expect(nullable(S.RealCallSessionExportRecord.properties.transcript)).toBe(true);
    expect(nullable(S.RealCallSessionExportRecord.properties.missionId)).toBe(true);
    for (const r of ['TrackAssignmentExportRecord', 'MissionAssignmentExportRecord']) {
      for (const f of ['dueDate', 'completedAt', 'assignedByUserId', 'sprintId']) {
        expect(nullable(S[r].properties[f]), `${r}.${f}`).toBe(true);
      }
      expect(nullable(S[r].properties.startDate), `${r}.startDate`).toBe(false);
    }
    expect(nullable(S.SprintExportRecord.properties.dueDate)).toBe(false);
    for (const f of ['email', 'firstName', 'lastName']) {
      expect(nullable(S.UserExportRecord.properties[f]), f).toBe(true);
    }
    expect(S.UserExportRecord.properties.email.format).toBe('email');
    expect(nullable(S.TrackExportRecord.properties.description)).toBe(false);
  });
});

describe('request constraints, parameters and statuses', () => {
  it('transcript 10–100000, meetingName ≥ 1, unknown fields refused (D2), exactly one designator (D5)', () => {
    const r = S.CreateRealCallSessionRequest;
    expect([r.properties.transcript.minLength, r.properties.transcript.maxLength]).toEqual([
      10, 100_000,
    ]);
    expect(r.properties.meetingName.minLength).toBe(1);
    expect(r.properties.userId.format).toBe('uuid');
    expect(r.additionalProperties).toBe(false);
    expect(r.oneOf).toHaveLength(2);
  });
  it('page ≥ 1 default 1, limit 1–100 default 20 (D7), archived include|only default include (D8)', () => {
    const p = doc.components.parameters;
    expect(p.Page.schema).toMatchObject({ type: 'integer', minimum: 1, default: 1 });
    expect(p.Limit.schema).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: 100,
      default: 20,
    });
    expect(p.Archived.name).toBe('archived');
    expect(p.Archived.schema).toMatchObject({ enum: ['include', 'only'], default: 'include' });
  });
  it('creation documents 201, 400, 401, 403, 409, 413, 422, 429, 502; read documents 200 and 201 (D4) and 404', () => {
    const create = doc.paths['/api/v1/real-call-sessions'].post.responses;
    for (const s of ['201', '400', '401', '403', '409', '413', '422', '429', '502']) {
      expect(create[s], s).toBeDefined();
    }
    const read = doc.paths['/api/v1/real-call-sessions/{sessionId}'].get.responses;
    for (const s of ['200', '201', '400', '401', '404']) expect(read[s], s).toBeDefined();
    expect(deref(read['401']).headers['WWW-Authenticate']).toBeDefined();
  });
  it('either scheme satisfies every operation; version 0.0.1', () => {
    expect(doc.security).toEqual([{ apiKey: [] }, { bearerAuth: [] }]);
    expect(doc.components.securitySchemes.apiKey).toMatchObject({
      in: 'header',
      name: 'X-API-KEY',
    });
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({
      scheme: 'bearer',
      bearerFormat: 'JWT',
    });
    expect(doc.info.version).toBe('0.0.1');
  });
  it('the 422 codes of D2/D3 are exactly the documented set', () => {
    const codes = deref(doc.paths['/api/v1/real-call-sessions'].post.responses['422']).content[
      'application/problem+json'
    ].schema;
    const allOf = deref(codes).allOf[1].properties.code.enum;
    expect([...allOf].sort()).toEqual(
      [
        'email_domain_not_allowed',
        'mission_not_found',
        'rep_not_in_transcript',
        'scorecard_not_found',
        'user_creation_disabled',
        'user_not_found',
      ].sort(),
    );
  });
});

describe('found in review (fixed)', () => {
  // The description types the request `email` as "string (e-mail)", besides the pattern.
  it('request email carries format: email', () => {
    expect(prop('CreateRealCallSessionRequest', 'email').format).toBe('email');
  });
  // "Timestamps are ISO 8601 date-times, UTC, with a trailing Z": `format: date-time` alone would
  // also accept offsets such as +01:00.
  it('DateTime requires the trailing Z', () => {
    expect(S.DateTime.pattern ?? '').toMatch(/Z/);
  });
});

describe('further schemas (description: Further schemas that exist)', () => {
  it('content assignment, certification, overview row, message, memory, feedback, organization, mission draft', () => {
    expect(S.ContentAssignmentCreateRequest.properties.userIds).toMatchObject({
      minItems: 1,
      maxItems: 10,
    });
    expect(S.ContentAssignment.properties.state.enum).toEqual([
      'notStarted',
      'started',
      'completed',
    ]);
    expect(S.ContentAssignment.properties.type.enum).toEqual([
      'autoTrackAllocation',
      'track',
      'managerAssigned',
      'refresher',
      'sprint',
      'selfEnrolled',
    ]);
    expect(S.ContentAssignment.properties.assignedBy.properties.kind.enum).toEqual([
      'user',
      'system',
      'unknown',
    ]);
    expect(S.AssignmentsOverviewRow.properties.status.enum).toEqual(['ACTIVE', 'CLOSED']);
    expect(nullable(S.AssignmentsOverviewRow.properties.completionPercentage)).toBe(true);
    expect(S.ActivitySessionStats.properties.averageScore).toMatchObject({
      minimum: 0,
      maximum: 100,
    });
    expect(nullable(S.ActivitySessionStats.properties.averageScore)).toBe(true);
    expect(S.Message.properties.role.enum).toEqual(['prospect', 'sales-agent']);
    expect(nullable(S.Message.properties.speakerUserId)).toBe(true);
    expect(S.MissionFeedbackCreateRequest.properties.rating).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: 5,
    });
    expect(S.OrganizationCreateRequest.properties.name).toMatchObject({
      minLength: 1,
      maxLength: 50,
    });
    expect(S.OrganizationCreateRequest.properties.description.maxLength).toBe(25_000);
    expect(S.AvatarUploadRequest.properties.age).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: 120,
    });
    expect(S.AvatarUploadRequest.properties.gender.enum).toEqual(['male', 'female']);
    expect(S.ConversationTopic.enum).toHaveLength(16);
    expect(S.MissionDraftOptions.properties.hide_examples.default).toBe(false);
    expect(S.MissionDraftOptions.properties.hide_scorecard.default).toBe(false);
  });

  // The description lists the avatar upload request as "age (integer 1 to 120), gender (male or
  // female), optional sagaId": only sagaId is marked optional, so age and gender are required.
  it('AvatarUploadRequest requires age and gender (only sagaId is optional)', () => {
    expect([...(S.AvatarUploadRequest.required ?? [])].sort()).toEqual(['age', 'gender']);
  });
});

describe('examples in openapi.yaml conform to their schemas', () => {
  it('every response example validates against its operation and status', async () => {
    const { openApiValidator } = await import(
      '../../packages/mock/test/helpers/openapi-validator.js'
    );
    const spec = openApiValidator();
    let checked = 0;
    for (const item of Object.values(doc.paths) as Json[]) {
      for (const op of Object.values(item) as Json[]) {
        for (const [status, response] of Object.entries(op.responses) as [string, Json][]) {
          const content = deref(response).content ?? {};
          for (const [media, entry] of Object.entries(content) as [string, Json][]) {
            const examples = [
              ...(entry.example !== undefined ? [entry.example] : []),
              ...Object.values(entry.examples ?? {}).map((e) => deref(e).value),
            ];
            for (const value of examples) {
              expect(
                spec.check(op.operationId, Number(status), media, value),
                `${op.operationId} ${status}`,
              ).toEqual([]);
              checked++;
            }
          }
        }
      }
    }
    expect(checked).toBeGreaterThanOrEqual(12);
  });

  it('request examples validate against CreateRealCallSessionRequest (ajv, 2020-12)', async () => {
    const { Ajv2020 } = await import('ajv/dist/2020.js');
    const addFormats = (await import('ajv-formats')).default as unknown as (a: unknown) => void;
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema({ ...doc, $id: 'openapi.json' });
    const validate = ajv.getSchema('openapi.json#/components/schemas/CreateRealCallSessionRequest');
    const examples =
      doc.paths['/api/v1/real-call-sessions'].post.requestBody.content['application/json'].examples;
    for (const [name, ex] of Object.entries(examples) as [string, Json][]) {
      expect(validate?.(ex.value), `${name}: ${JSON.stringify(validate?.errors)}`).toBe(true);
    }
  });
});
