/**
 * The browser example: pick or drop a transcript, see what `rcs check` shows,
 * computed here with @rcs/transcript, then upload it to the mock running in this page (an MSW
 * service worker over @rcs/mock's handlers) or to an `rcs mock` URL (CORS, D26), and see the
 * score once the session is DONE. Plain DOM; built by ../build.mjs with esbuild.
 */
import { createRcsClient, type RealCallSession } from '@rcs/client';
import { createMockApi } from '@rcs/mock';
import {
  decodeTranscriptBytes,
  detectSource,
  type ImportSource,
  importTranscript,
  type ParsedTranscript,
  prevalidateUpload,
} from '@rcs/transcript';
import { setupWorker } from 'msw/browser';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

/** Sources sent as written; meeting-tool exports are converted to speaker-labeled SRT (R4). */
const AS_IS: readonly ImportSource[] = ['srt', 'plain'];

interface Loaded {
  name: string;
  text: string;
  converted: boolean;
  problems: { line?: number | undefined; message: string }[];
}

let current: Loaded | undefined;
let currentFile: File | undefined;
let inPage: { apiKey: string; rep: string; stop(): void } | undefined;

/** Starts the mock in this page once; its first rep is offered as the e-mail. */
async function startInPageMock(): Promise<{ apiKey: string; rep: string; stop(): void }> {
  if (inPage) return inPage;
  const api = createMockApi({ processingMs: 1500 });
  const worker = setupWorker(...api.handlers);
  await worker.start({
    serviceWorker: { url: './mockServiceWorker.js' },
    quiet: true,
    onUnhandledRequest: 'bypass',
  });
  inPage = {
    apiKey: api.info.apiKeys[0] ?? '',
    rep: api.info.repEmails[0] ?? '',
    stop: () => worker.stop(),
  };
  return inPage;
}

function speakerMap(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of $<HTMLTextAreaElement>('speakers').value.split('\n')) {
    const i = line.lastIndexOf('=');
    if (i > 0) out[line.slice(0, i).trim()] = line.slice(i + 1).trim();
  }
  return out;
}

/** Reads and converts a file as `rcs upload`/`rcs check` do (decode, detect, import). */
async function load(file: File): Promise<Loaded> {
  const loaded: Loaded = { name: file.name, text: '', converted: false, problems: [] };
  const decoded = decodeTranscriptBytes(new Uint8Array(await file.arrayBuffer()));
  if ('error' in decoded) {
    loaded.problems.push({ line: decoded.error.line || undefined, message: decoded.error.message });
    return loaded;
  }
  const source = detectSource(decoded.text, file.name);
  const speakers = speakerMap();
  if (AS_IS.includes(source) && Object.keys(speakers).length === 0) {
    loaded.text = decoded.text;
    return loaded;
  }
  const imported = importTranscript(decoded.text, { source, fileName: file.name, speakers });
  loaded.text = imported.srt;
  loaded.converted = true;
  for (const d of imported.diagnostics) {
    if (d.severity === 'error')
      loaded.problems.push({ line: d.line || undefined, message: d.message });
  }
  return loaded;
}

function el(tag: string, text?: string, className?: string): HTMLElement {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (className) e.className = className;
  return e;
}

const percent = (x: number | null) => (x === null ? 'n/a' : `${(x * 100).toFixed(1)}%`);

/** One lane per speaker across the call, with each one's share of the talk time (D21). */
function drawTimeline(parsed: ParsedTranscript, rep: string | undefined): void {
  const box = $('timeline');
  box.replaceChildren();
  const cues = parsed.cues.filter(
    (c) => c.startMs !== null && c.endMs !== null && c.endMs > c.startMs,
  );
  if (cues.length === 0) return;
  // A loop, not Math.min(...cues): a spread passes every cue as an argument, which overflows the
  // stack on a long call (some 185,000 cues in 16 MB).
  let start = Number.POSITIVE_INFINITY;
  let end = Number.NEGATIVE_INFINITY;
  for (const c of cues) {
    start = Math.min(start, c.startMs as number);
    end = Math.max(end, c.endMs as number);
  }
  const span = Math.max(1, end - start);
  const lanes = new Map<string, { talk: number; spans: [number, number][] }>();
  for (const c of cues) {
    const who = c.speaker.email ?? c.label ?? '(no label)';
    const lane = lanes.get(who) ?? { talk: 0, spans: [] };
    lane.talk += (c.endMs as number) - (c.startMs as number);
    lane.spans.push([(c.startMs as number) - start, (c.endMs as number) - start]);
    lanes.set(who, lane);
  }
  const total = [...lanes.values()].reduce((n, l) => n + l.talk, 0);
  for (const [who, lane] of lanes) {
    const row = el('div', undefined, `lane${who === rep ? ' rep' : ''}`);
    row.dataset.speaker = who;
    row.append(el('span', who === rep ? `${who} (rep)` : who, 'name'));
    const bar = el('div', undefined, 'bar');
    for (const [a, b] of lane.spans) {
      const s = el('span');
      s.style.left = `${(a / span) * 100}%`;
      s.style.width = `${Math.max(0.3, ((b - a) / span) * 100)}%`;
      bar.append(s);
    }
    row.append(bar, el('span', `${Math.round((lane.talk / total) * 100)}%`, 'share'));
    box.append(row);
  }
}

/** The report of `rcs check`: format, speakers, rep, KPIs, timeline, problems with lines. */
function check(): void {
  if (!current) return;
  const email = $<HTMLInputElement>('email').value.trim() || undefined;
  const domains = $<HTMLInputElement>('domains')
    .value.split(',')
    .map((d) => d.trim())
    .filter(Boolean);
  const body: Record<string, string> = {
    transcript: current.text,
    meetingName: current.name.replace(/\.[^.]+$/, '') || 'Call',
  };
  if (email) body.email = email;
  const result = prevalidateUpload(body, domains.length ? { emailDomains: domains } : {});
  const { report } = result;
  $('report').hidden = false;
  $('summary').textContent =
    `${current.name}: ${report.format ?? 'unreadable'}, ${report.cueCount} cue${report.cueCount === 1 ? '' : 's'}` +
    (current.converted ? ' (converted to speaker-labeled SRT)' : '');
  const rows = report.speakers.map((sp) => {
    const tr = el('tr');
    tr.append(
      el('td', sp.label),
      el('td', sp.kind, `kind-${sp.kind}`),
      el('td', String(sp.cueCount), 'num'),
      el('td', String(sp.firstLine), 'num'),
    );
    return tr;
  });
  // One fragment, not replaceChildren(...rows): a speaker per cue would be too many arguments.
  const tableRows = document.createDocumentFragment();
  for (const row of rows) tableRows.append(row);
  $('speaker-table').querySelector('tbody')?.replaceChildren(tableRows);
  $('speaker-table').hidden = rows.length === 0;
  $('rep-speaks').textContent =
    report.repSpeaks === null
      ? email
        ? 'Rep: not attributable (no speaker labels)'
        : 'Rep: not given (enter the e-mail to check rule 8 and preview the KPIs)'
      : `Rep ${email} speaks: ${report.repSpeaks ? 'yes' : 'no'}`;
  $('kpis').textContent = email
    ? `KPI preview: listen ratio ${percent(report.kpis.listenRatio)} · longest monologue ${report.kpis.longestMonologue ?? 'n/a'} s · talk speed ${report.kpis.talkSpeed ?? 'n/a'} wpm`
    : '';
  if (result.parsed) drawTimeline(result.parsed, email?.toLowerCase());
  // Without a rep, the missing designator (D5) is not the file's problem: shown once, as rcs does.
  const problems = [
    ...current.problems,
    ...result.problems.filter((p) => email || p.field === undefined),
  ];
  const box = $('problems');
  box.replaceChildren();
  if (problems.length === 0) {
    box.append(el('p', 'OK: the upload would pass pre-validation.', 'ok'));
  } else {
    box.append(el('p', 'Problems (the upload would be rejected):', 'problems'));
    const list = el('ul', undefined, 'problems');
    for (const p of problems) {
      const li = el('li', p.line ? `line ${p.line}: ${p.message}` : p.message);
      if (p.line) li.dataset.line = String(p.line);
      list.append(li);
    }
    box.append(list);
  }
  $('upload-box').hidden = false;
  $<HTMLButtonElement>('upload').disabled = !result.ok || current.problems.length > 0;
}

async function pick(file: File | undefined): Promise<void> {
  if (!file) return;
  currentFile = file;
  current = await load(file);
  check();
}

async function upload(): Promise<void> {
  if (!current) return;
  const status = $('status');
  const target = (document.querySelector('input[name=target]:checked') as HTMLInputElement).value;
  try {
    let baseUrl: string;
    let apiKey: string;
    if (target === 'page') {
      status.textContent = 'starting the mock in this page…';
      apiKey = (await startInPageMock()).apiKey;
      baseUrl = location.origin;
    } else {
      // The worker answers every origin's /api/v1 (the mock's handlers match any origin): stop
      // it, so that the request reaches the server typed here.
      inPage?.stop();
      inPage = undefined;
      baseUrl = $<HTMLInputElement>('base-url').value.trim();
      apiKey = $<HTMLInputElement>('api-key').value.trim();
    }
    const rcs = createRcsClient({ baseUrl, apiKey, maxRetries: 1 });
    status.textContent = 'uploading…';
    const created = await rcs.sessions.create({
      transcript: current.text,
      meetingName: current.name.replace(/\.[^.]+$/, '') || 'Call',
      email: $<HTMLInputElement>('email').value.trim(),
    });
    status.textContent = `session ${created.id}: ${created.state}`;
    const done = await rcs.sessions.waitUntilDone(created.id, {
      timeoutMs: 60_000,
      initialIntervalMs: 300,
      onProgress: (s) => {
        status.textContent = `session ${created.id}: ${s.state}`;
      },
    });
    status.textContent = `session ${done.id}: ${done.state}`;
    showScore(done);
  } catch (error) {
    status.textContent = `upload failed: ${(error as Error).message}`;
  }
}

function showScore(session: RealCallSession): void {
  const box = $('score');
  box.replaceChildren(el('p', `score ${session.analysis.score}/100`, 'big'));
  const list = el('ul');
  for (const item of session.analysis.items) {
    list.append(el('li', `${item.name ?? 'item'}: ${item.score}/100 (${item.solved ?? 'n/a'})`));
  }
  box.append(list);
}

// Wiring.
$<HTMLInputElement>('file').addEventListener('change', (e) =>
  pick((e.target as HTMLInputElement).files?.[0]),
);
const drop = $('drop');
drop.addEventListener('dragover', (e) => {
  e.preventDefault();
  drop.classList.add('over');
});
drop.addEventListener('dragleave', () => drop.classList.remove('over'));
drop.addEventListener('drop', (e) => {
  e.preventDefault();
  drop.classList.remove('over');
  void pick(e.dataTransfer?.files[0]);
});
for (const id of ['email', 'domains']) $(id).addEventListener('input', () => check());
// The speaker map changes the conversion itself: read the file again.
$('speakers').addEventListener('input', () => void pick(currentFile));
$('upload').addEventListener('click', () => void upload());
// The in-page mock starts at once, so that its rep can be offered as the e-mail.
void startInPageMock().then(({ rep }) => {
  const email = $<HTMLInputElement>('email');
  if (!email.value) email.value = rep;
  document.body.dataset.mock = 'ready';
  check();
});
