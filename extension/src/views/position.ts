// Where the adi session is: after each stop the views share one look at
// the Call Stack (the inspected frame, its line, its callers) and the run's
// outcome, so that each view asks the adapter only for its own data.

import * as vscode from 'vscode';
import { StackEntry, fidOfFrameName, isTruncatedAnswer, stackEntries } from './model';
import { Failures, OutcomeJSON, failuresOf } from './modelTree';

/** The parts of the core's AdiSessions (extension/src/sessions.ts) the views use. */
export interface AdiSessionsLike {
  active(): vscode.DebugSession | undefined;
  onDidStop: vscode.Event<{ session: vscode.DebugSession; body: any }>;
  onDidEnd: vscode.Event<vscode.DebugSession>;
}

/** The session's position after a stop. */
export interface Position {
  session: vscode.DebugSession;
  /** Counts the stops of all sessions: a view drops answers for an older one. */
  serial: number;
  /** The inspected frame and the statement's line and file (0 and '' when unknown). */
  fid: string;
  line: number;
  file: string;
  /** The inspected frame's callers, the inspected frame first and its root last. */
  chain: string[];
  reason: string;
  failures: Failures;
  /** The Call Stack's frames of the stop (ids, fids, lines): the views follow the one selected there. */
  stack: StackEntry[];
  /**
   * Set when a caller is selected in the Call Stack: the frame it called
   * (the statement of the call is the current one).
   */
  callee?: string;
}



interface StackFrameLike {
  id: number;
  name: string;
  line: number;
  source?: { path?: string };
}

/** Sends an adi request and returns its body; a too-large answer is an error saying so. */
export async function adiRequest<T>(session: vscode.DebugSession, command: string, args: object = {}): Promise<T> {
  const body = await session.customRequest(command, args);
  if (isTruncatedAnswer(body)) throw new TooLarge(body.note);
  return body as T;
}

export class TooLarge extends Error {}

/** Tracks the active adi session's position and tells the views. */
export class Positions implements vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<Position | undefined>();
  readonly onDidChange = this.emitter.event;
  private serial = 0;
  private last: Position | undefined;
  private stop: Position | undefined; // the position of the last stop
  private pending = 0; // stops being read
  private readonly outcomes = new Map<string, Promise<Failures>>();
  private readonly disposables: vscode.Disposable[] = [this.emitter];

  constructor(sessions: AdiSessionsLike) {
    this.disposables.push(
      sessions.onDidStop((e) => void this.stopped(e.session, e.body)),
      sessions.onDidEnd((s) => this.ended(s)),
      vscode.debug.onDidChangeActiveStackItem((item) => this.selected(item)),
    );
  }

  /** A frame selected in the Call Stack: the views show it (a caller at the statement of the call). */
  private selected(item: vscode.DebugThread | vscode.DebugStackFrame | undefined): void {
    const base = this.stop;
    // While a stop is read, the Call Stack's ids belong to the new stack.
    if (!base || this.pending > 0 || !(item instanceof vscode.DebugStackFrame) || item.session.id !== base.session.id) return;
    const i = base.stack.findIndex((f) => f.id === item.frameId);
    if (i < 0) return;
    const f = base.stack[i];
    if (this.last && this.last.fid === f.fid && (this.last.callee ?? '') === (i > 0 ? base.stack[i - 1].fid : '')) return;
    this.last = i === 0
      ? { ...base, serial: ++this.serial }
      : { ...base, serial: ++this.serial, fid: f.fid, line: f.line, file: f.file, chain: base.chain.slice(i), reason: 'caller', callee: base.stack[i - 1].fid };
    this.emitter.fire(this.last);
  }

  get current(): Position | undefined {
    return this.last;
  }

  private ended(s: vscode.DebugSession): void {
    this.outcomes.delete(s.id);
    if (this.last?.session.id === s.id) {
      this.last = undefined;
      this.stop = undefined;
      this.serial++;
      this.emitter.fire(undefined);
    }
  }

  private failures(s: vscode.DebugSession): Promise<Failures> {
    let p = this.outcomes.get(s.id);
    if (!p) {
      p = adiRequest<OutcomeJSON>(s, 'adi/outcome').then(failuresOf, () => failuresOf(undefined));
      this.outcomes.set(s.id, p);
    }
    return p;
  }

  private async stopped(session: vscode.DebugSession, body: any): Promise<void> {
    const serial = ++this.serial;
    this.pending++;
    try {
      const threadId = typeof body?.threadId === 'number' ? body.threadId : 1;
      const st = await session.customRequest('stackTrace', { threadId, startFrame: 0, levels: 0 });
      const frames: StackFrameLike[] = st?.stackFrames ?? [];
      const stack = stackEntries(frames);
      const chain = stack.map((f) => f.fid);
      const total: number = st?.totalFrames ?? frames.length;
      if (total > frames.length) {
        // A deeper stack than one answer carries: its root is on the last page.
        const tail = await session.customRequest('stackTrace', { threadId, startFrame: total - 1, levels: 1 });
        const root = fidOfFrameName(tail?.stackFrames?.[0]?.name ?? '');
        if (root) chain.push(root);
      }
      const failures = await this.failures(session);
      if (serial !== this.serial || chain.length === 0) return;
      const top = frames[0];
      this.last = {
        session, serial, fid: chain[0], line: top?.line ?? 0, file: top?.source?.path ?? '', chain,
        reason: String(body?.reason ?? ''), failures, stack,
      };
      this.stop = this.last;
      this.emitter.fire(this.last);
    } catch (err) {
      if (serial === this.serial) {
        // The session may be ending; the views say what they can.
        console.warn('adi views: reading the position failed:', err);
      }
    } finally {
      this.pending--;
    }
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}

/** Moves the session to a frame: the editor, Call Stack and Variables follow its stopped event. */
export async function goToFrame(session: vscode.DebugSession | undefined, fid: string): Promise<void> {
  if (!session) {
    void vscode.window.showWarningMessage('adi: no adi debug session: start one from Run and Debug (type "adi") first.');
    return;
  }
  try {
    await session.customRequest('adi/stepInto', { fid });
  } catch (err) {
    void vscode.window.showErrorMessage(`adi: cannot go to ${fid}: ${errorText(err)}`);
  }
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Opens file at line (1-based) in an editor. */
export async function revealLine(file: string, line: number, preserveFocus = false): Promise<void> {
  if (!file || line < 1) return;
  try {
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
    const pos = new vscode.Position(line - 1, 0);
    await vscode.window.showTextDocument(doc, { selection: new vscode.Range(pos, pos), preserveFocus, preview: true });
  } catch (err) {
    void vscode.window.showErrorMessage(`adi: cannot open ${file}:${line}: ${errorText(err)}`);
  }
}
