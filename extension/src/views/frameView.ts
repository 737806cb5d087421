// The frame view: the inspected frame's FLT, following the session.

import * as vscode from 'vscode';
import {
  FLTJSON, StepHint, TreeJSON, frameHtml, frameModel, makeNonce, messageHtml, pickStep, webviewDocument, escapeHtml,
} from './model';
import { Position, Positions, TooLarge, adiRequest, errorText, goToFrame, revealLine } from './position';
import { webviewStyle } from './style';

const idle = 'No adi debug session is stopped. Start one from Run and Debug (a launch configuration of type "adi") or with "debug with adi" above a test.';

export class FrameView implements vscode.WebviewViewProvider, vscode.Disposable {
  static readonly id = 'adi.frameView';
  private view: vscode.WebviewView | undefined;
  private body = messageHtml(idle);
  private shown = -1; // the serial of the position rendered
  private readonly hints = new Map<string, StepHint>(); // by session id
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly positions: Positions) {
    this.disposables.push(positions.onDidChange((p) => void this.update(p)));
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    view.webview.options = { enableScripts: true, localResourceRoots: [] };
    const nonce = makeNonce();
    view.webview.html = webviewDocument({
      nonce, cspSource: view.webview.cspSource, title: 'adi: Frame', style: webviewStyle + frameStyle, body: this.body, script: frameScript,
    });
    view.webview.onDidReceiveMessage((m) => void this.onMessage(m), undefined, this.disposables);
    view.onDidChangeVisibility(() => {
      if (view.visible && this.positions.current && this.positions.current.serial !== this.shown) void this.update(this.positions.current);
    }, undefined, this.disposables);
    view.onDidDispose(() => { this.view = undefined; }, undefined, this.disposables);
    if (this.positions.current && this.positions.current.serial !== this.shown) void this.update(this.positions.current);
  }

  refresh(): void {
    this.shown = -1;
    void this.update(this.positions.current);
  }

  private render(body: string): void {
    this.body = body;
    void this.view?.webview.postMessage({ type: 'render', html: body });
  }

  private async update(p: Position | undefined): Promise<void> {
    if (!p) {
      this.shown = -1;
      this.render(messageHtml(idle));
      return;
    }
    if (!this.view || !this.view.visible) return; // rendered when shown
    this.shown = p.serial;
    this.view.description = p.fid.slice(p.fid.lastIndexOf('/') + 1);
    try {
      const flt = await adiRequest<FLTJSON>(p.session, 'adi/frame', { fid: p.fid });
      let callees: TreeJSON | undefined;
      try {
        callees = await adiRequest<TreeJSON>(p.session, 'adi/callTree', { fid: p.fid, depth: 1 });
      } catch {
        callees = undefined; // the callees show without their results
      }
      if (p.serial !== this.positions.current?.serial) return; // moved on meanwhile
      let step: number;
      if (p.callee) {
        // A caller selected in the Call Stack: the statement that made the call.
        step = p.fid === flt.fid ? pickStep(flt, p.line, { fid: p.callee, step: -1 }, p.reason) : -1;
      } else {
        const prev = this.hints.get(p.session.id);
        step = p.fid === flt.fid ? pickStep(flt, p.line, prev, p.reason) : -1;
        this.hints.set(p.session.id, { fid: flt.fid, step });
      }
      this.render(frameHtml(frameModel(flt, step, callees?.root)));
    } catch (err) {
      if (p.serial !== this.positions.current?.serial) return;
      const why = err instanceof TooLarge ? err.message : errorText(err);
      this.render(`<div id="frame-view" class="message"><p class="error">adi: no trace for ${escapeHtml(p.fid)}: ${escapeHtml(why)}</p></div>`);
    }
  }

  private async onMessage(m: any): Promise<void> {
    switch (m?.type) {
      case 'ready': // the page (re)loaded: it shows what was last rendered
        void this.view?.webview.postMessage({ type: 'render', html: this.body });
        break;
      case 'reveal':
        await revealLine(String(m.file ?? ''), Number(m.line ?? 0));
        break;
      case 'stepInto':
        if (typeof m.fid === 'string' && m.fid !== '') await goToFrame(this.positions.current?.session, m.fid);
        break;
    }
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}

const frameStyle = `
#frame-view header { margin-bottom: 6px; }
#frame-view h2 { font-size: 1.05em; margin: 4px 0; font-family: var(--vscode-editor-font-family); word-break: break-all; }
#frame-view h2 { display: -webkit-box; -webkit-box-orient: vertical; -webkit-line-clamp: 3; overflow: hidden; }
#frame-view .caller { opacity: 0.8; }
ol.steps { list-style: none; margin: 0; padding: 0; font-family: var(--vscode-editor-font-family); font-size: var(--vscode-editor-font-size); }
ol.steps li { display: flex; gap: 8px; padding: 2px 4px; border-left: 3px solid transparent; }
li.step { cursor: pointer; }
li.step:hover { background: var(--vscode-list-hoverBackground); }
li.step.current { background: var(--vscode-editor-stackFrameHighlightBackground, var(--vscode-list-activeSelectionBackground)); border-left-color: var(--vscode-debugIcon-stepIntoForeground, var(--vscode-focusBorder)); }
li .ln { color: var(--vscode-editorLineNumber-foreground); min-width: 3ch; text-align: right; flex: none; }
li .body { flex: 1; min-width: 0; }
code.stmt { white-space: pre-wrap; word-break: break-word; }
.iter { margin-left: 8px; color: var(--vscode-descriptionForeground); font-size: 0.9em; }
.changes, .callees { display: flex; flex-wrap: wrap; gap: 2px 12px; margin-top: 1px; }
.change, button.callee { max-width: 100%; max-height: 4.5em; overflow: hidden; word-break: break-all; }
.change { color: var(--vscode-debugTokenExpression-name); }
.change .var { font-weight: 600; }
.change .old { color: var(--vscode-descriptionForeground); text-decoration: line-through; }
.change .new { color: var(--vscode-debugTokenExpression-value); }
li.skip { color: var(--vscode-descriptionForeground); font-style: italic; }
button.callee { font: inherit; color: var(--vscode-textLink-foreground); background: none; border: none; padding: 0; cursor: pointer; text-align: left; }
button.callee:hover { text-decoration: underline; }
button.callee.failed, .outcome.failed { color: var(--vscode-errorForeground); }
button.callee .result { color: var(--vscode-descriptionForeground); }
.outcome { margin-top: 8px; padding: 4px; border-top: 1px solid var(--vscode-panel-border); font-family: var(--vscode-editor-font-family); }
`;

// Runs in the webview: renders what the extension sends and reports clicks.
const frameScript = `
const vscode = acquireVsCodeApi();
const root = document.getElementById('root');
vscode.postMessage({ type: 'ready' });
window.addEventListener('message', (e) => {
  const m = e.data;
  if (!m || m.type !== 'render') return;
  root.innerHTML = m.html;
  const cur = root.querySelector('.step.current');
  if (cur) cur.scrollIntoView({ block: 'nearest' });
});
root.addEventListener('click', (e) => {
  const callee = e.target.closest('.callee');
  if (callee) {
    e.stopPropagation();
    vscode.postMessage({ type: 'stepInto', fid: callee.dataset.fid });
    return;
  }
  const step = e.target.closest('.step');
  if (step) vscode.postMessage({ type: 'reveal', file: step.dataset.file, line: Number(step.dataset.line) });
});
`;
