/** A mock fixture full of hostile cells: formulas, control characters, non-ASCII. */
const ORG = '0b8f5d0e-3c1a-4f59-9d5e-2a7b6c8d9e01';
export const HOSTILE_API_KEY = 'hostile-test-key-1';
const uuid = (n: number) => `${n.toString(16).padStart(8, '0')}-3c1a-4f59-9d5e-2a7b6c8d9e01`;
const hex = (n: number) => `64b7f0c2a1b2c3d4e5f6${n.toString(16).padStart(4, '0')}`;

/** Cells a spreadsheet would run, break or mangle, and names outside ASCII. */
export const HOSTILE_CELLS = [
  '=HYPERLINK("http://evil.example","click")',
  '+1',
  '-2',
  '@x',
  ' =x',
  '\t=cmd',
  'say "hi", then, leave',
  'line one\nline two\r\nline three',
  'Zoë Ångström-Łukasiewicz',
  '李小龍 🚀',
  '-3+4',
  '',
];

/** A fixture (mock-fixture.md) whose nine exports are full of HOSTILE_CELLS. */
export function hostileFixture(size = HOSTILE_CELLS.length * 3) {
  const cell = (i: number) => HOSTILE_CELLS[i % HOSTILE_CELLS.length]!;
  const at = (i: number) =>
    new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString().replace('.000', '');
  const teams = Array.from({ length: size }, (_, i) => ({ id: uuid(0x100 + i), name: cell(i) }));
  const users = Array.from({ length: size }, (_, i) => ({
    id: uuid(0x200 + i),
    email: `user${i}@acme.example`,
    firstName: cell(i),
    lastName: i % 3 === 0 ? null : cell(i + 1),
    teamIds: [teams[i % teams.length]!.id],
    createdAt: at(i),
  }));
  const scorecards = [
    {
      id: hex(0x300),
      title: cell(0),
      language: 'en' as const,
      items: [{ name: cell(1), keywords: ['budget'] }],
    },
  ];
  const missions = Array.from({ length: size }, (_, i) => ({
    id: hex(0x400 + i),
    title: cell(i),
    language: 'de' as const,
    scorecardId: scorecards[0]!.id,
  }));
  const tracks = Array.from({ length: size }, (_, i) => ({
    id: hex(0x500 + i),
    title: cell(i),
    description: cell(i + 2),
    missionIds: [missions[i]!.id],
    archived: i % 4 === 0,
  }));
  const sprints = Array.from({ length: size }, (_, i) => ({
    id: uuid(0x600 + i),
    title: cell(i),
    createdAt: at(i),
    lastUpdatedAt: at(i + 1),
    userId: users[i]!.id,
    dueDate: at(i + 100),
    assignedTeamId: teams[i]!.id,
  }));
  const trackAssignments = Array.from({ length: size }, (_, i) => ({
    id: uuid(0x700 + i),
    createdAt: at(i),
    lastUpdatedAt: at(i),
    learnerUserId: users[i]!.id,
    trackId: tracks[i]!.id,
    startDate: at(i),
    dueDate: i % 2 ? null : at(i + 50),
    status: i % 2 ? ('open' as const) : ('completed' as const),
    completedAt: i % 2 ? null : at(i + 10),
    completedMissionIds: i % 2 ? [] : [missions[i]!.id],
    assignedByUserId: i % 3 ? users[0]!.id : null,
    sprintId: i % 2 ? sprints[i]!.id : null,
  }));
  const missionAssignments = Array.from({ length: size }, (_, i) => ({
    id: uuid(0x800 + i),
    createdAt: at(i),
    lastUpdatedAt: at(i),
    learnerUserId: users[i]!.id,
    missionId: missions[i]!.id,
    startDate: at(i),
    dueDate: null,
    status: 'open' as const,
    completedAt: null,
    assignedByUserId: null,
    sprintId: null,
  }));
  const realCallSessions = Array.from({ length: 3 }, (_, i) => ({
    id: uuid(0x900 + i),
    createdAt: at(i),
    lastUpdatedAt: at(i),
    userId: users[i]!.id,
    call: {
      id: `call-${i}`,
      createdAt: at(i),
      lastUpdatedAt: at(i),
      assistantReferenceId: 'assistant',
      state: 'DONE' as const,
      transcript: `${cell(i + 7)}\n=SUM(A1:A9) budget`,
    },
    analysis: {
      id: `analysis-${i}`,
      createdAt: at(i),
      lastUpdatedAt: at(i),
      state: 'DONE' as const,
      score: 40 + i,
      items: Array.from({ length: i + 1 }, (_, j) => ({
        id: `item-${i}-${j}`,
        createdAt: at(i),
        lastUpdatedAt: at(i),
        state: 'DONE' as const,
        score: 10 * j,
        name: cell(j),
        explanation: cell(j + 3),
        suggestion: null,
        solved: j === 0 ? ('undetected' as const) : ('partlySolved' as const),
        behaviours: [],
      })),
    },
    kpis: { id: `kpis-${i}`, createdAt: at(i), lastUpdatedAt: at(i), state: 'SKIPPED' as const },
    language: 'fr' as const,
    state: 'DONE' as const,
    completed: false,
    type: 'REAL_CALL' as const,
    participantUserIds: [users[i]!.id],
  }));
  return {
    organizations: [
      {
        id: ORG,
        name: 'Hostile cells',
        apiKeys: [HOSTILE_API_KEY],
        settings: { autoCreateUsers: false, emailDomains: ['acme.example'] },
        users,
        teams,
        scorecards,
        missions,
        tracks,
        sprints,
        trackAssignments,
        missionAssignments,
        realCallSessions,
      },
    ],
  };
}
