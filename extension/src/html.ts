// HTML of the chat panel: every text that comes from the adapter, the
// agent, the model or the user is escaped here. No vscode here.
import { classifyDiffLines } from './diff';
import type { Diagnosis, Evidence } from './panel';

/** Escapes text for HTML element content and double-quoted attributes. */
export function escapeHtml(s: unknown): string {
  return String(s ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** A tool call as a collapsible card; its result is filled in later. */
export function toolCardHtml(id: string, tool: string, args: unknown): string {
  let a = '';
  if (args !== undefined && args !== null && !(typeof args === 'object' && Object.keys(args as object).length === 0)) {
    a = typeof args === 'string' ? args : JSON.stringify(args, null, 2);
  }
  return `<details class="tool-card" data-id="${escapeHtml(id)}">`
    + `<summary><span class="tool-name">${escapeHtml(tool)}</span> <span class="tool-args-inline">${escapeHtml(oneLine(a))}</span> <span class="tool-state">running…</span></summary>`
    + (a ? `<pre class="tool-args">${escapeHtml(a)}</pre>` : '')
    + '<pre class="tool-result"></pre></details>';
}

function oneLine(s: string): string {
  const l = s.replace(/\s+/g, ' ').trim();
  return l.length > 80 ? l.slice(0, 79) + '…' : l;
}

/** A diff with each line in a span coloured by its kind. */
export function diffHtml(diff: string): string {
  return '<pre class="diff">' + classifyDiffLines(diff)
    .map((l) => `<span class="${l.cls}">${escapeHtml(l.text)}</span>`).join('\n') + '</pre>';
}

function locationText(file: string, line: number): string {
  return line > 0 ? `${file}:${line}` : file;
}

function evidenceHtml(e: Evidence): string {
  const where = e.file ? `<a class="loc" href="#" data-file="${escapeHtml(e.file)}" data-line="${escapeHtml(e.line ?? 0)}">${escapeHtml(locationText(e.file, e.line ?? 0))}</a> ` : '';
  const fid = e.fid ? `<code>${escapeHtml(e.fid)}</code> ` : '';
  const value = e.value ? ` <code class="value">${escapeHtml(e.value)}</code>` : '';
  return `<li>${fid}${where}${escapeHtml(e.claim)}${value}</li>`;
}

/** The final diagnosis: root cause, explanation, evidence, verification, fix. */
export function diagnosisHtml(d: Diagnosis): string {
  const rc = d.root_cause ?? { file: '', line: 0, func: '' };
  const parts: string[] = [];
  if (d.summary) {
    parts.push(`<div class="summary">${escapeHtml(d.summary)}</div>`);
  }
  parts.push('<div class="root-cause-line">Root cause: '
    + `<a class="root-cause" href="#" data-file="${escapeHtml(rc.file)}" data-line="${escapeHtml(rc.line)}">${escapeHtml(locationText(rc.file, rc.line))}</a>`
    + (rc.func ? ` in <code>${escapeHtml(rc.func)}</code>` : '')
    + (rc.fid ? ` (frame <code>${escapeHtml(rc.fid)}</code>)` : '')
    + '</div>');
  if (d.explanation) {
    parts.push(`<div class="explanation">${escapeHtml(d.explanation)}</div>`);
  }
  const ev = d.evidence ?? [];
  parts.push('<div class="evidence"><div class="label">Evidence</div>'
    + (ev.length ? '<ul>' + ev.map(evidenceHtml).join('') + '</ul>' : '<div class="none">none recorded</div>') + '</div>');
  const v = d.verification;
  const status = v ? v.status : (d.fix ? 'not-run' : 'no fix');
  parts.push(`<div class="verification status-${escapeHtml(status.replace(/\s+/g, '-'))}">Verification: <b>${escapeHtml(statusText(status))}</b>`
    + (v && v.command ? `<pre class="command">${escapeHtml(v.command)}</pre>` : '')
    + (v && v.status !== 'passed' && v.output ? `<pre class="output">${escapeHtml(v.output)}</pre>` : '')
    + '</div>');
  const meta = [`confidence ${d.confidence || '?'}`, d.method ? `method ${d.method}` : '', d.source ? `by the ${d.source === 'llm' ? 'LLM agent' : d.source + ' diagnoser'}` : '']
    .filter((s) => s !== '').join(' · ');
  parts.push(`<div class="meta">${escapeHtml(meta)}</div>`);
  if (d.partial) {
    parts.push(`<div class="partial">Partial: ${escapeHtml(d.partial)}</div>`);
  }
  if (d.unsupported && d.unsupported.length) {
    parts.push('<div class="unsupported">Not supported by the recording:<ul>' + d.unsupported.map((u) => `<li>${escapeHtml(u)}</li>`).join('') + '</ul></div>');
  }
  if (d.fix) {
    parts.push('<div class="fix"><div class="label">Fix</div>' + diffHtml(d.fix)
      + '<div class="actions"><button id="apply">Apply</button> <button id="rerun">Re-run tests</button> <span id="rerun-status"></span></div></div>');
  } else {
    parts.push('<div class="fix none">No fix: no safe fix template matches this bug.'
      + '<div class="actions"><button id="rerun">Re-run tests</button> <span id="rerun-status"></span></div></div>');
  }
  return parts.join('\n');
}

function statusText(s: string): string {
  switch (s) {
    case 'passed': return 'passed (the fix makes the tests pass)';
    case 'failed': return 'failed (the tests still fail with the fix)';
    case 'does-not-apply': return 'the fix does not apply';
    case 'does-not-build': return 'the fix does not build';
    case 'not-run': return 'not run';
  }
  return s;
}

/**
 * The chat panel's page. Strict CSP: no inline script, scripts only with
 * the nonce, styles only from the extension's media folder, nothing
 * loaded from the network.
 */
export function pageHtml(o: { cspSource: string; nonce: string; scriptUri: string; styleUri: string; mode: string }): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src ${escapeHtml(o.cspSource)} data:; style-src ${escapeHtml(o.cspSource)}; script-src 'nonce-${escapeHtml(o.nonce)}';">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${escapeHtml(o.styleUri)}">
<title>adi</title>
</head>
<body>
<div id="mode">${escapeHtml(o.mode)}</div>
<div id="transcript" aria-live="polite"></div>
<div id="diagnosis"></div>
<div id="composer">
<textarea id="question" rows="3" placeholder="Ask adi about the failure (empty: diagnose it)"></textarea>
<div class="buttons"><button id="ask">Ask</button> <button id="stop" disabled>Stop</button> <span id="status"></span></div>
</div>
<script nonce="${escapeHtml(o.nonce)}" src="${escapeHtml(o.scriptUri)}"></script>
</body>
</html>`;
}
