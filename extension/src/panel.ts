// The chat panel's model: adi/agent events (agent/report/event.go) reduced to the
// messages the webview renders. No vscode here.
import { diagnosisHtml, escapeHtml, toolCardHtml } from './html';

export interface Location {
  file: string;
  line: number;
  func: string;
  fid?: string;
}

export interface Evidence {
  fid?: string;
  file?: string;
  line?: number;
  claim: string;
  value?: string;
}

export interface Verification {
  status: string;
  command: string;
  output: string;
}

/** agent.Diagnosis as JSON. */
export interface Diagnosis {
  root_cause: Location;
  summary: string;
  explanation: string;
  evidence: Evidence[] | null;
  fix: string;
  verification?: Verification | null;
  confidence: string;
  method: string;
  source: string;
  unsupported?: string[];
  partial?: string;
}

/** agent.Event as JSON (the body of an adi/agent event). */
export interface AgentEvent {
  kind: 'text' | 'toolCall' | 'toolResult' | 'diagnosis' | 'error' | 'usage' | string;
  text?: string;
  tool?: string;
  id?: string;
  args?: unknown;
  result?: string;
  diagnosis?: Diagnosis;
  usage?: { rounds: number; prompt_tokens: number; completion_tokens: number };
}

/** What the webview is told to do. HTML fields are escaped already. */
export type PanelMessage =
  | { type: 'text'; text: string }
  | { type: 'user'; text: string }
  | { type: 'toolCall'; id: string; html: string }
  | { type: 'toolResult'; id: string; result: string }
  | { type: 'diagnosis'; html: string }
  | { type: 'error'; text: string }
  | { type: 'usage'; text: string }
  | { type: 'notice'; text: string }
  | { type: 'busy'; busy: boolean }
  | { type: 'mode'; text: string }
  | { type: 'rerun'; text: string; ok: boolean | undefined }
  | { type: 'applied'; files: string }
  | { type: 'clear' };

/**
 * PanelModel keeps the conversation as panel messages, so that a panel
 * opened (or re-opened) late shows it all, and turns each agent event into
 * the messages to send now.
 */
export class PanelModel {
  readonly history: PanelMessage[] = [];
  diagnosis: Diagnosis | undefined;
  private calls = 0;
  private openCalls: string[] = [];

  /** Records and returns the messages of one agent event. */
  apply(e: AgentEvent): PanelMessage[] {
    const out = reduce(e, this);
    this.history.push(...out.filter((m) => m.type !== 'busy'));
    return out;
  }

  /** Records a message the extension itself sends (question, notice…). */
  push(m: PanelMessage): PanelMessage {
    if (m.type === 'clear') {
      this.history.length = 0;
      this.diagnosis = undefined;
      this.openCalls = [];
    } else if (m.type !== 'busy') {
      this.history.push(m);
    }
    return m;
  }

  /** The id of a tool call: the event's, else a generated one. */
  callId(id: string | undefined): string {
    const v = id && id !== '' ? id : `call-${++this.calls}`;
    this.openCalls.push(v);
    return v;
  }

  /** The call a result answers: its id, else the oldest open call. */
  resultId(id: string | undefined): string {
    if (id && id !== '') {
      this.openCalls = this.openCalls.filter((c) => c !== id);
      return id;
    }
    return this.openCalls.shift() ?? `call-${this.calls}`;
  }
}

function reduce(e: AgentEvent, m: PanelModel): PanelMessage[] {
  switch (e.kind) {
    case 'text':
      return e.text ? [{ type: 'text', text: e.text }] : [];
    case 'toolCall': {
      const id = m.callId(e.id);
      return [{ type: 'toolCall', id, html: toolCardHtml(id, e.tool ?? '?', e.args) }];
    }
    case 'toolResult':
      return [{ type: 'toolResult', id: m.resultId(e.id), result: e.result ?? '' }];
    case 'diagnosis':
      if (!e.diagnosis) {
        return [];
      }
      m.diagnosis = e.diagnosis;
      return [{ type: 'diagnosis', html: diagnosisHtml(e.diagnosis) }];
    case 'error':
      return [{ type: 'error', text: e.text || 'the diagnosis failed' }, { type: 'busy', busy: false }];
    case 'usage': {
      const u = e.usage;
      if (!u) {
        return [{ type: 'busy', busy: false }];
      }
      const text = u.rounds > 0 || u.prompt_tokens > 0
        ? `${u.rounds} round${u.rounds === 1 ? '' : 's'}, ${u.prompt_tokens} prompt + ${u.completion_tokens} completion tokens`
        : 'no model tokens used';
      return [{ type: 'usage', text }, { type: 'busy', busy: false }];
    }
  }
  return [];
}

/** The diagnosis as Markdown, for the Chat view's @adi participant. */
export function diagnosisMarkdown(d: Diagnosis): string {
  const rc = d.root_cause;
  const lines: string[] = [];
  if (d.summary) {
    lines.push(`**${mdEscape(d.summary)}**`, '');
  }
  lines.push(`Root cause: \`${rc.file}:${rc.line}\`${rc.func ? ` in \`${rc.func}\`` : ''}${rc.fid ? ` (frame \`${rc.fid}\`)` : ''}`, '');
  if (d.explanation) {
    lines.push(mdEscape(d.explanation), '');
  }
  const ev = d.evidence ?? [];
  if (ev.length) {
    lines.push('Evidence:');
    for (const e of ev) {
      lines.push(`- ${e.fid ? `\`${e.fid}\` ` : ''}${e.file ? `\`${e.file}:${e.line ?? 0}\` ` : ''}${mdEscape(e.claim)}${e.value ? ` \`${e.value}\`` : ''}`);
    }
    lines.push('');
  }
  lines.push(`Verification: ${d.verification ? d.verification.status : (d.fix ? 'not run' : 'no fix')} · confidence ${d.confidence}`, '');
  if (d.fix) {
    lines.push('```diff', d.fix.replace(/\n$/, ''), '```');
  }
  return lines.join('\n');
}

/** Escapes Markdown's active characters in model or recording text. */
export function mdEscape(s: string): string {
  return s.replace(/[\\`*_{}[\]<>#|]/g, '\\$&');
}

/** The message of an error, for the panel and notifications. */
export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

// escapeHtml is re-exported for the panel's callers.
export { escapeHtml };
