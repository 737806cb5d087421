// The frame view's logic, free of the vscode module: the JSON shapes of the
// adapter's answers (engine/trace/render_json.go), the view model built from
// an FLT, and its HTML.

/** A value as adi renders it in JSON. */
export interface ValueJSON {
  name: string;
  type: string;
  value: string;
  kind?: string;
  len?: number;
  cap?: number;
  nil?: boolean;
  cut?: boolean;
  error?: string;
}

export interface PosJSON {
  file: string;
  line: number;
}

export interface ChangeJSON {
  var: string;
  old: string | null;
  new: string;
  type?: string;
}

export interface StepJSON {
  file: string;
  line: number;
  stmt: string;
  changes: ChangeJSON[];
  callees: string[];
  iteration?: number;
}

export interface SkipJSON {
  after: number;
  line: number;
  iterations: number;
  steps: number;
  callees: string[];
}

/** The answer to adi/frame (and to the navigating requests). */
export interface FLTJSON {
  fid: string;
  func: string;
  index: number;
  caller: string | null;
  spawn: boolean;
  goroutine: number;
  call_site: PosJSON;
  args: ValueJSON[];
  results: ValueJSON[];
  exit: string;
  panic: string | null;
  decl?: PosJSON;
  steps: StepJSON[];
  skipped: SkipJSON[];
  truncated: boolean;
  /** The adapter's step in the inspected frame (absent for other frames). */
  current_step?: number;
  note?: string;
  text?: string;
}

/** A node of the answer to adi/callTree. */
export interface NodeJSON {
  fid: string;
  args: ValueJSON[];
  results: ValueJSON[];
  panic: string | null;
  exit: string;
  children: NodeJSON[];
  more?: number;
  more_after?: number;
  spawn?: boolean;
  goroutine: number;
}

export interface TreeJSON {
  root: NodeJSON | null;
  roots?: NodeJSON[];
}

/** An answer too large for one DAP message: only its text, cut. */
export interface TruncatedJSON {
  truncated: true;
  text: string;
  note: string;
}

export function isTruncatedAnswer(v: unknown): v is TruncatedJSON {
  const o = v as { truncated?: unknown; text?: unknown; fid?: unknown; root?: unknown };
  return !!o && o.truncated === true && typeof o.text === 'string' && o.fid === undefined && o.root === undefined;
}

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(s: unknown): string {
  return String(s ?? '').replace(/[&<>"'`]/g, (c) => {
    switch (c) {
      case '&': return '&amp;';
      case '<': return '&lt;';
      case '>': return '&gt;';
      case '"': return '&quot;';
      case "'": return '&#39;';
      default: return '&#96;';
    }
  });
}

/** The function name without its package path: offbyone.SumFirst#1. */
export function shortName(fidOrFunc: string): string {
  // The package path ends at the last slash before the first '(' or '['
  // (a method's receiver or a generic's type parameters may hold slashes).
  let end = fidOrFunc.length;
  for (const c of ['(', '[']) {
    const i = fidOrFunc.indexOf(c);
    if (i >= 0 && i < end) end = i;
  }
  return fidOrFunc.slice(fidOrFunc.lastIndexOf('/', end) + 1);
}

/** The function of a fid: "main.fib#3" → "main.fib". */
export function fidFunc(fid: string): string {
  const i = fid.lastIndexOf('#');
  return i < 0 ? fid : fid.slice(0, i);
}

/** Parses the fid at the start of a Call Stack frame name, "main.fib#3(n=2)". */
export function fidOfFrameName(name: string): string | undefined {
  const m = /^(.+?#\d+)(?:\(|\s|$)/.exec(name);
  return m ? m[1] : undefined;
}

/** A frame of the Call Stack (a DAP stackTrace answer) that names an adi frame. */
export interface StackEntry {
  id: number;
  fid: string;
  line: number;
  file: string;
}

/** The adi frames of a stackTrace answer's frames, the inspected one first. */
export function stackEntries(frames: { id: number; name: string; line: number; source?: { path?: string } }[] | undefined): StackEntry[] {
  const out: StackEntry[] = [];
  for (const f of frames ?? []) {
    const fid = fidOfFrameName(f.name);
    if (fid) out.push({ id: f.id, fid, line: f.line, file: f.source?.path ?? '' });
  }
  return out;
}

/** Unnamed results are ~r0, ~r1: shown by value alone. */
function isUnnamed(v: ValueJSON): boolean {
  return v.name === '' || v.name.startsWith('~');
}

export function formatArgs(args: ValueJSON[]): string {
  return args.map((a) => `${a.name}=${a.value}`).join(', ');
}

export function formatResults(results: ValueJSON[]): string {
  const parts = results.map((r) => (isUnnamed(r) ? r.value : `${r.name}=${r.value}`));
  return parts.length === 1 ? parts[0] : `(${parts.join(', ')})`;
}

/** How a frame ended, in a few words: "→ 852", "panicked: …", "→ ()". */
export function outcomeText(f: { exit: string; panic: string | null; results: ValueJSON[] }): string {
  switch (f.exit) {
    case 'panicked':
      return `panicked: ${f.panic ?? ''}`.trimEnd();
    case 'goexit':
      return 'goexit (t.FailNow / t.Fatal)';
    case 'running':
      return 'still running when the run ended';
    case 'unrecorded':
      return 'exit unrecorded';
  }
  return f.results.length ? `→ ${formatResults(f.results)}` : 'returned';
}

export interface ChangeModel {
  name: string;
  old: string | null;
  value: string;
  type: string;
}

export interface CalleeModel {
  fid: string;
  label: string;
  args: string;
  outcome: string;
  failed: boolean;
}

export interface StepRow {
  kind: 'step';
  index: number;
  file: string;
  line: number;
  stmt: string;
  iteration: number;
  changes: ChangeModel[];
  callees: CalleeModel[];
  current: boolean;
}

export interface SkipRow {
  kind: 'skip';
  line: number;
  iterations: number;
  steps: number;
  callees: CalleeModel[];
}

export type Row = StepRow | SkipRow;

export interface FrameModel {
  fid: string;
  label: string;
  args: string;
  outcome: string;
  failed: boolean;
  decl?: PosJSON;
  callSite?: PosJSON;
  caller: string | null;
  rows: Row[];
  truncated: boolean;
  note: string;
}

function calleeModel(fid: string, known: Map<string, NodeJSON>): CalleeModel {
  const n = known.get(fid);
  return {
    fid,
    label: shortName(fid),
    args: n ? formatArgs(n.args) : '',
    outcome: n ? outcomeText(n) : '',
    failed: !!n && (n.exit === 'panicked' || n.exit === 'goexit'),
  };
}

/**
 * Builds the frame view's model: the statements in order with the skipped
 * loop iterations in their place, each callee with its arguments and
 * results when the call tree below the frame (callees) knows them, and the
 * current statement marked.
 */
export function frameModel(flt: FLTJSON, current: number, callees?: NodeJSON | null): FrameModel {
  const known = new Map<string, NodeJSON>();
  for (const c of callees?.children ?? []) known.set(c.fid, c);
  const skipsAfter = new Map<number, SkipJSON[]>();
  const before: SkipJSON[] = [];
  for (const s of flt.skipped ?? []) {
    if (s.after < 0) {
      before.push(s);
      continue;
    }
    const l = skipsAfter.get(s.after) ?? [];
    l.push(s);
    skipsAfter.set(s.after, l);
  }
  const skipRow = (s: SkipJSON): SkipRow => ({
    kind: 'skip',
    line: s.line,
    iterations: s.iterations,
    steps: s.steps,
    callees: (s.callees ?? []).map((c) => calleeModel(c, known)),
  });
  const rows: Row[] = before.map(skipRow);
  (flt.steps ?? []).forEach((st, i) => {
    rows.push({
      kind: 'step',
      index: i,
      file: st.file,
      line: st.line,
      stmt: st.stmt,
      iteration: st.iteration ?? 0,
      changes: (st.changes ?? []).map((c) => ({ name: c.var, old: c.old, value: c.new, type: c.type ?? '' })),
      callees: (st.callees ?? []).map((c) => calleeModel(c, known)),
      current: i === current,
    });
    for (const s of skipsAfter.get(i) ?? []) rows.push(skipRow(s));
  });
  // Skips recorded after the last statement (a cut trace) still show.
  for (const [after, l] of skipsAfter) {
    if (after >= (flt.steps ?? []).length) for (const s of l) rows.push(skipRow(s));
  }
  return {
    fid: flt.fid,
    label: shortName(flt.fid),
    args: formatArgs(flt.args ?? []),
    outcome: outcomeText(flt),
    failed: flt.exit === 'panicked' || flt.exit === 'goexit',
    decl: flt.decl,
    callSite: flt.call_site && flt.call_site.file ? flt.call_site : undefined,
    caller: flt.caller,
    rows,
    truncated: !!flt.truncated,
    note: flt.note ?? '',
  };
}

/** Where the session was when it last stopped, to place the next stop. */
export interface StepHint {
  fid: string;
  step: number;
}

/**
 * The index of the statement the session stopped at. The adapter reports
 * the line (the top of the Call Stack), not the statement: a line runs many
 * times in a loop, so the hint of the previous stop picks among the
 * candidates: in the same frame the one nearest the previous statement
 * (next and step back move by one; forward at equal distance), in the caller of the previous frame the
 * statement that called it (step out), at a panic the last, else the first.
 * -1 when no statement is on that line.
 */
export function pickStep(flt: FLTJSON, line: number, prev?: StepHint, reason?: string): number {
  const steps = flt.steps ?? [];
  // The adapter knows its step when this is the inspected frame; a guess
  // from the line is only for adapters that do not say.
  const known = flt.current_step;
  if (typeof known === 'number' && known >= 0 && known < steps.length && steps[known].line === line) return known;
  const cands: number[] = [];
  steps.forEach((s, i) => {
    if (s.line === line) cands.push(i);
  });
  if (cands.length === 0) return -1;
  if (prev && prev.fid === flt.fid && prev.step >= 0) {
    let best = cands[0];
    for (const c of cands) {
      const d = Math.abs(c - prev.step) - Math.abs(best - prev.step);
      // At equal distance forward wins: next is the usual move.
      if (d < 0 || (d === 0 && c > prev.step)) best = c;
    }
    return best;
  }
  if (prev) {
    const calling = cands.find((i) => steps[i].callees.includes(prev.fid));
    if (calling !== undefined) return calling;
  }
  if (reason === 'exception') return cands[cands.length - 1];
  return cands[0];
}

function calleeHtml(c: CalleeModel): string {
  const cls = c.failed ? 'callee failed' : 'callee';
  const sig = c.args !== '' || c.outcome !== '' ? `(${escapeHtml(c.args)})` : '';
  const out = c.outcome ? ` <span class="result">${escapeHtml(c.outcome)}</span>` : '';
  return `<button type="button" class="${cls}" data-fid="${escapeHtml(c.fid)}" title="step into ${escapeHtml(c.fid)}">` +
    `<span class="codicon">↳</span> ${escapeHtml(c.label)}${sig}${out}</button>`;
}

function changeHtml(c: ChangeModel): string {
  const type = c.type ? ` title="${escapeHtml(c.type)}"` : '';
  if (c.old === null) {
    return `<span class="change created"${type}><span class="var">${escapeHtml(c.name)}</span> := <span class="new">${escapeHtml(c.value)}</span></span>`;
  }
  return `<span class="change"${type}><span class="var">${escapeHtml(c.name)}</span>: <span class="old">${escapeHtml(c.old)}</span> → <span class="new">${escapeHtml(c.value)}</span></span>`;
}

function rowHtml(r: Row): string {
  if (r.kind === 'skip') {
    const calls = r.callees.length ? `, ${r.callees.length} call${r.callees.length === 1 ? '' : 's'}` : '';
    const kids = r.callees.length ? `<div class="callees">${r.callees.map(calleeHtml).join('')}</div>` : '';
    return `<li class="skip"><span class="ln">${r.line}</span><span class="body">… ${r.iterations} iteration${r.iterations === 1 ? '' : 's'} of line ${r.line} skipped (${r.steps} statement${r.steps === 1 ? '' : 's'}${calls})${kids}</span></li>`;
  }
  const cls = r.current ? 'step current' : 'step';
  const iter = r.iteration > 0 ? `<span class="iter" title="loop iteration">#${r.iteration}</span>` : '';
  const changes = r.changes.length ? `<div class="changes">${r.changes.map(changeHtml).join('')}</div>` : '';
  const callees = r.callees.length ? `<div class="callees">${r.callees.map(calleeHtml).join('')}</div>` : '';
  return `<li class="${cls}" data-index="${r.index}" data-file="${escapeHtml(r.file)}" data-line="${r.line}" title="${escapeHtml(r.file)}:${r.line}">` +
    `<span class="ln">${r.line}</span><span class="body"><code class="stmt">${escapeHtml(r.stmt)}</code>${iter}${changes}${callees}</span></li>`;
}

/** The body of the frame view for a frame. */
export function frameHtml(m: FrameModel): string {
  const head = `<header><h2 class="fid" title="${escapeHtml(m.fid)}">${escapeHtml(m.label)}(${escapeHtml(m.args)})</h2>` +
    (m.caller ? `<div class="caller">called by <button type="button" class="callee caller-link" data-fid="${escapeHtml(m.caller)}">${escapeHtml(shortName(m.caller))}</button></div>` : '') +
    `</header>`;
  const note = m.note ? `<p class="note">${escapeHtml(m.note)}</p>` : '';
  const rows = m.rows.length ? `<ol class="steps">${m.rows.map(rowHtml).join('')}</ol>` : '<p class="empty">no statements recorded for this frame</p>';
  const cut = m.truncated ? '<p class="note">the trace is cut: the frame ran more statements than adi keeps</p>' : '';
  const end = `<footer class="outcome${m.failed ? ' failed' : ''}">${escapeHtml(m.outcome)}</footer>`;
  return `<div id="frame-view" data-fid="${escapeHtml(m.fid)}">${head}${note}${rows}${cut}${end}</div>`;
}

/** The frame view's body when there is no frame to show. */
export function messageHtml(text: string): string {
  return `<div id="frame-view" class="message"><p class="empty">${escapeHtml(text)}</p></div>`;
}

/** The frame view's body for an answer too large to send whole. */
export function truncatedHtml(t: TruncatedJSON): string {
  return `<div id="frame-view" class="message"><p class="note">${escapeHtml(t.note)}</p><pre>${escapeHtml(t.text)}</pre></div>`;
}

/** A random nonce for a webview's Content-Security-Policy. */
export function makeNonce(random: () => number = Math.random): string {
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let s = '';
  for (let i = 0; i < 32; i++) s += chars[Math.floor(random() * chars.length)];
  return s;
}

/**
 * A complete webview document: a strict Content-Security-Policy (no remote
 * resources; only the nonced style and script run), the theme's colours
 * through VS Code's CSS variables.
 */
export function webviewDocument(opts: { nonce: string; cspSource: string; title: string; style: string; body: string; script: string }): string {
  const csp = [
    "default-src 'none'",
    `style-src 'nonce-${opts.nonce}'`,
    `script-src 'nonce-${opts.nonce}'`,
    `img-src ${opts.cspSource} data:`,
    `font-src ${opts.cspSource}`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp.replace(/"/g, '&quot;')}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>${escapeHtml(opts.title)}</title>
<style nonce="${opts.nonce}">${opts.style}</style>
</head>
<body>
<div id="root">${opts.body}</div>
<script nonce="${opts.nonce}">${opts.script}</script>
</body>
</html>`;
}
