// The timeline: the frames of the run over time, as a picture.

import * as vscode from 'vscode';
import { TreeJSON, escapeHtml, makeNonce, shortName, webviewDocument } from './model';
import { TimelineData, flatten, layout, onChart, timelineSvg } from './modelTimeline';
import { Position, Positions, TooLarge, adiRequest, errorText, goToFrame } from './position';
import { webviewStyle } from './style';

/**
 * How deep the timeline asks adi/callTree to go from the root. adi has no
 * request for the whole index, so the picture is the call tree of the
 * inspected frame's root, to this depth, with at most 30 callees of a frame
 * (the first 25 and the last 5; the others count as one entry each).
 */
const maxDepth = 12;

const idle = 'No adi debug session is stopped: the frames of the recorded run show here once one is.';

export class Timeline implements vscode.WebviewViewProvider, vscode.Disposable {
  static readonly id = 'adi.timeline';
  private view: vscode.WebviewView | undefined;
  private data: TimelineData | undefined;
  private dataKey = ''; // session and root of data
  private depth = maxDepth;
  private width = 600;
  private body = `<div id="timeline"><p class="empty">${escapeHtml(idle)}</p></div>`;
  private shown = -1;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly positions: Positions) {
    this.disposables.push(positions.onDidChange((p) => void this.update(p)));
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    view.webview.options = { enableScripts: true, localResourceRoots: [] };
    view.webview.html = webviewDocument({
      nonce: makeNonce(), cspSource: view.webview.cspSource, title: 'adi: Timeline', style: webviewStyle + timelineStyle, body: this.body, script: timelineScript,
    });
    view.webview.onDidReceiveMessage((m) => void this.onMessage(m), undefined, this.disposables);
    view.onDidChangeVisibility(() => {
      const p = this.positions.current;
      if (view.visible && p && p.serial !== this.shown) void this.update(p);
    }, undefined, this.disposables);
    view.onDidDispose(() => { this.view = undefined; }, undefined, this.disposables);
    // Opened while a session is already stopped: draw it now.
    const p = this.positions.current;
    if (p && p.serial !== this.shown) void this.update(p);
  }

  refresh(): void {
    this.data = undefined;
    this.dataKey = '';
    this.depth = maxDepth;
    this.shown = -1;
    void this.update(this.positions.current);
  }

  private post(body: string): void {
    this.body = body;
    void this.view?.webview.postMessage({ type: 'render', html: body });
  }

  private async update(p: Position | undefined): Promise<void> {
    if (!p) {
      this.data = undefined;
      this.dataKey = '';
      this.shown = -1;
      this.post(`<div id="timeline"><p class="empty">${escapeHtml(idle)}</p></div>`);
      return;
    }
    if (!this.view?.visible) return;
    this.shown = p.serial;
    const rootFid = p.chain[p.chain.length - 1];
    const key = `${p.session.id}\u0000${rootFid}`;
    try {
      if (!this.data || this.dataKey !== key) {
        this.data = await this.fetch(p, rootFid);
        this.dataKey = key;
      }
      if (p.serial !== this.positions.current?.serial) return;
      this.draw(p);
    } catch (err) {
      if (p.serial !== this.positions.current?.serial) return;
      this.post(`<div id="timeline"><p class="error">adi: no timeline for ${escapeHtml(rootFid)}: ${escapeHtml(errorText(err))}</p></div>`);
    }
  }

  /** The root's call tree, as deep as fits in one answer. */
  private async fetch(p: Position, rootFid: string): Promise<TimelineData> {
    for (let depth = maxDepth; ; depth = Math.floor(depth / 2)) {
      try {
        const t = await adiRequest<TreeJSON>(p.session, 'adi/callTree', { fid: rootFid, depth });
        if (!t.root) throw new Error('the adapter sent no tree');
        this.depth = depth;
        return flatten(t.root, p.failures);
      } catch (err) {
        if (!(err instanceof TooLarge) || depth <= 1) throw err;
      }
    }
  }

  private draw(p: Position | undefined): void {
    if (!this.data) return;
    // The inspected frame, or its nearest caller on the chart when the call
    // tree left it out (deeper than the depth, or in a long list's middle).
    const current = p ? onChart(this.data, p.chain) : undefined;
    const l = layout(this.data, { width: this.width, current });
    const failed = this.data.failure;
    const head = `<div class="summary">${l.shown} frames shown, ${l.total} entries from ${escapeHtml(shortName(this.data.frames[0]?.fid ?? ''))} (call depth ≤ ${this.depth})` +
      (failed ? ` · <span class="fail">failure: <a href="#" class="jump" data-fid="${escapeHtml(failed)}">${escapeHtml(shortName(failed))}</a></span>` : '') +
      (p ? ` · <span class="cur">inspected: ${escapeHtml(shortName(p.fid))}${current !== undefined && current !== p.fid ? ` (not on the chart; marked: its caller ${escapeHtml(shortName(current ?? ''))})` : ''}</span>` : '') + `</div>`;
    this.post(`<div id="timeline">${head}${timelineSvg(l)}<div class="legend">x: order of entry · y: call depth · <span class="sw failed"></span> failed <span class="sw path"></span> on the failing path <span class="sw cur"></span> inspected · click a frame to go there</div></div>`);
  }

  private async onMessage(m: any): Promise<void> {
    switch (m?.type) {
      case 'ready':
      case 'resize': {
        const w = Math.floor(Number(m.width));
        if (w > 0 && Math.abs(w - this.width) >= 8) {
          this.width = w;
          this.draw(this.positions.current);
        } else if (m.type === 'ready') {
          void this.view?.webview.postMessage({ type: 'render', html: this.body });
        }
        break;
      }
      case 'jump':
        if (typeof m.fid === 'string' && m.fid !== '') await goToFrame(this.positions.current?.session, m.fid);
        break;
    }
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}

const timelineStyle = `
#timeline { overflow-x: hidden; }
#timeline .summary { margin: 4px 0; }
#timeline svg { display: block; }
#timeline .cell rect { fill: var(--vscode-charts-blue); opacity: 0.55; stroke: var(--vscode-sideBar-background, var(--vscode-editor-background)); stroke-width: 0.5; cursor: pointer; }
#timeline .cell.merged rect { opacity: 0.35; }
#timeline .cell.path rect { fill: var(--vscode-charts-orange); opacity: 0.75; }
#timeline .cell.failed rect { fill: var(--vscode-charts-red); opacity: 0.95; }
#timeline .cell.current rect { stroke: var(--vscode-focusBorder); stroke-width: 2; opacity: 1; }
#timeline .cell:hover rect { opacity: 1; }
#timeline text { fill: var(--vscode-foreground); font-family: var(--vscode-editor-font-family); font-size: 10px; pointer-events: none; }
#timeline line.failure-mark { stroke: var(--vscode-charts-red); stroke-width: 1.5; stroke-dasharray: 3 2; }
#timeline line.current-mark { stroke: var(--vscode-focusBorder); stroke-width: 1.5; }
#timeline .legend { color: var(--vscode-descriptionForeground); margin-top: 4px; font-size: 0.9em; }
#timeline .sw { display: inline-block; width: 10px; height: 10px; margin: 0 2px 0 8px; vertical-align: middle; }
#timeline .sw.failed { background: var(--vscode-charts-red); }
#timeline .sw.path { background: var(--vscode-charts-orange); }
#timeline .sw.cur { border: 2px solid var(--vscode-focusBorder); }
#timeline .fail { color: var(--vscode-errorForeground); }
`;

const timelineScript = `
const vscode = acquireVsCodeApi();
const root = document.getElementById('root');
const width = () => Math.max(100, Math.floor(root.clientWidth || document.body.clientWidth));
vscode.postMessage({ type: 'ready', width: width() });
let timer;
new ResizeObserver(() => {
  clearTimeout(timer);
  timer = setTimeout(() => vscode.postMessage({ type: 'resize', width: width() }), 150);
}).observe(root);
window.addEventListener('message', (e) => {
  const m = e.data;
  if (m && m.type === 'render') root.innerHTML = m.html;
});
root.addEventListener('click', (e) => {
  const t = e.target.closest('[data-fid]');
  if (!t) return;
  e.preventDefault();
  vscode.postMessage({ type: 'jump', fid: t.dataset.fid });
});
`;
