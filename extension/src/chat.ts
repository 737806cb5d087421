// The "adi" chat panel: a webview that streams the agent's adi/agent
// events, shows the diagnosis with its fix, applies the fix after a diff
// preview, re-runs the tests, and takes follow-up questions.
import * as cp from 'child_process';
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { LaunchConfig, locate, moduleRoot, rerunCommand } from './config';
import { Controller, TestTarget } from './controller';
import { currentAdapterEnv, goCommand } from './debug';
import { applyPatch, parseDiff, patchTarget } from './diff';
import { pageHtml } from './html';
import { errorText, PanelMessage, PanelModel } from './panel';

/** Patched files previewed in the diff editor, by URI path. */
class PatchedDocuments implements vscode.TextDocumentContentProvider {
  static readonly scheme = 'adi-fix';
  private readonly docs = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  set(uri: vscode.Uri, text: string): void {
    this.docs.set(uri.toString(), text);
    this.changed.fire(uri);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.docs.get(uri.toString()) ?? '';
  }
}

export class ChatPanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private readonly model = new PanelModel();
  /** The session the conversation is with. */
  private session: vscode.DebugSession | undefined;
  /** The launch configuration of the diagnosed run (outlives the session). */
  private config: LaunchConfig | undefined;
  private busy = false;
  private sawError = false;
  /** The webview's script has loaded: until then messages are only kept in the model's history. */
  private ready = false;
  /** The id of the session last talked to. */
  private lastSession: string | undefined;
  private readonly patched = new PatchedDocuments();
  /** The #mode line: offline or the model, from the settings and the secret key. */
  private mode: Promise<string>;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly context: vscode.ExtensionContext, private readonly ctl: Controller, private readonly log: vscode.OutputChannel) {
    this.mode = this.computeMode();
    this.disposables.push(
      vscode.workspace.registerTextDocumentContentProvider(PatchedDocuments.scheme, this.patched),
      ctl.sessions.onAgentEvent(({ session, body }) => {
        if (this.session && session.id !== this.session.id) {
          return;
        }
        if (!this.session) {
          this.adopt(session);
        }
        if (body && body.kind === 'error') {
          this.sawError = true;
        }
        for (const m of this.model.apply(body ?? {})) {
          this.post(m);
        }
      }),
      ctl.sessions.onDidEnd((s) => {
        if (this.session && s.id === this.session.id) {
          this.session = undefined;
          this.setBusy(false);
          this.notice('The adi debug session ended; a question starts a new one.');
        }
      }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('adi.llm')) {
          void this.refreshMode();
        }
      }),
      context.secrets.onDidChange(() => void this.refreshMode()),
    );
  }

  /** Opens (or reveals) the panel. */
  async show(): Promise<void> {
    if (this.panel) {
      this.panel.reveal(undefined, false); // where it is
      return;
    }
    const mode = await this.mode;
    if (this.panel) {
      return; // opened meanwhile
    }
    const media = vscode.Uri.joinPath(this.context.extensionUri, 'media');
    const panel = vscode.window.createWebviewPanel('adi.chat', 'adi', { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false }, {
      enableScripts: true,
      retainContextWhenHidden: true,
      localResourceRoots: [media],
    });
    this.panel = panel;
    this.ready = false;
    const nonce = crypto.randomBytes(16).toString('base64');
    panel.webview.html = pageHtml({
      cspSource: panel.webview.cspSource,
      nonce,
      scriptUri: panel.webview.asWebviewUri(vscode.Uri.joinPath(media, 'chat.js')).toString(),
      styleUri: panel.webview.asWebviewUri(vscode.Uri.joinPath(media, 'chat.css')).toString(),
      mode,
    });
    panel.webview.onDidReceiveMessage((m) => void this.onMessage(m), undefined, this.disposables);
    panel.onDidDispose(() => {
      this.panel = undefined;
    }, undefined, this.disposables);
  }

  private adopt(session: vscode.DebugSession): void {
    if (this.lastSession !== undefined && this.lastSession !== session.id) {
      this.notice(`Now talking to the adi session "${session.name}" (a new recording).`);
    }
    this.lastSession = session.id;
    this.session = session;
    this.config = session.configuration as LaunchConfig;
  }

  private post(m: PanelMessage): void {
    if (this.panel && this.ready) {
      void this.panel.webview.postMessage(m);
    }
  }

  private notice(text: string): void {
    this.post(this.model.push({ type: 'notice', text }));
  }

  private error(text: string): void {
    this.post(this.model.push({ type: 'error', text }));
  }

  private setBusy(b: boolean): void {
    this.busy = b;
    this.post({ type: 'busy', busy: b });
  }

  private async computeMode(): Promise<string> {
    try {
      return (await currentAdapterEnv(this.context.secrets)).mode;
    } catch (e) {
      return 'offline diagnoser (' + errorText(e) + ')';
    }
  }

  private async refreshMode(): Promise<void> {
    this.mode = this.computeMode();
    this.post({ type: 'mode', text: await this.mode });
  }

  private async onMessage(m: any): Promise<void> {
    try {
      switch (m?.type) {
        case 'ready':
          this.ready = true;
          this.post({ type: 'mode', text: await this.mode });
          for (const h of this.model.history) {
            this.post(h);
          }
          this.post({ type: 'busy', busy: this.busy });
          break;
        case 'ask':
          await this.ask(String(m.question ?? ''));
          break;
        case 'stop':
          await this.stop();
          break;
        case 'open':
          await this.open(String(m.file ?? ''), Number(m.line) || 0);
          break;
        case 'apply':
          await this.apply();
          break;
        case 'rerun':
          await this.rerun();
          break;
      }
    } catch (e) {
      this.error(errorText(e));
      this.setBusy(false);
    }
  }

  /** "diagnose with adi": a session for the test (started if need be), then adi/diagnose. */
  async diagnoseTest(arg?: TestTarget): Promise<void> {
    await this.show();
    const t = this.ctl.target(arg);
    if ('error' in t) {
      this.error(t.error);
      void vscode.window.showErrorMessage(t.error);
      return;
    }
    if (this.busy) {
      this.notice('A diagnosis is running: press Stop first.');
      return;
    }
    this.post(this.model.push({ type: 'clear' }));
    this.session = undefined;
    this.lastSession = undefined;
    this.setBusy(true);
    this.notice(`Recording ${t.test ?? 'the tests of ' + path.basename(path.dirname(t.file))} with adi…`);
    let session: vscode.DebugSession;
    try {
      session = await this.ctl.sessionFor(t.file, t.test);
    } catch (e) {
      this.setBusy(false);
      this.error(errorText(e));
      return;
    }
    this.adopt(session);
    await this.run(session, '');
  }

  /** The question box: a follow-up in the conversation, or a first diagnosis. */
  async ask(question: string): Promise<void> {
    await this.show();
    if (this.busy) {
      this.notice('A diagnosis is running: wait for it or press Stop.');
      return;
    }
    let session = this.session ?? this.ctl.sessions.active();
    if (!session) {
      if (this.config?.program && this.config.mode === 'test') {
        // The session ended (re-recorded, stopped): record the same test again.
        this.setBusy(true);
        this.notice('Recording again…');
        try {
          session = await this.ctl.startConfig({ ...this.config });
        } catch (e) {
          this.setBusy(false);
          this.error(errorText(e));
          return;
        }
      } else {
        const t = this.ctl.target();
        if ('error' in t) {
          this.error('No adi debug session is running. ' + t.error);
          return;
        }
        return this.diagnoseTest({ uri: vscode.Uri.file(t.file), test: t.test });
      }
    }
    this.adopt(session);
    if (question.trim()) {
      this.post(this.model.push({ type: 'user', text: question.trim() }));
    }
    await this.run(session, question);
  }

  private async run(session: vscode.DebugSession, question: string): Promise<void> {
    this.setBusy(true);
    this.sawError = false;
    try {
      await this.ctl.waitStopped(session);
      await this.ctl.diagnose(session, question);
    } catch (e) {
      // The adapter sent an error event already, unless the request
      // failed before it started.
      if (!this.sawError) {
        this.error(errorText(e));
      }
    } finally {
      this.setBusy(false);
    }
  }

  async stop(): Promise<void> {
    if (!this.busy) {
      this.notice('Nothing to stop.');
      return;
    }
    const s = this.session;
    if (s) {
      await this.ctl.cancel(s);
      return;
    }
    // Still recording: stop the session being started.
    const recording = this.ctl.sessions.all().filter((x) => !this.ctl.sessions.hasStopped(x));
    for (const r of recording) {
      await vscode.debug.stopDebugging(r);
    }
    this.notice(recording.length ? 'Stopped the recording.' : 'Nothing to stop.');
  }

  /** The module root of the diagnosed run. */
  private root(): string | undefined {
    const c = this.config;
    const start = c?.program ? (path.isAbsolute(c.program) || !c.cwd ? c.program : path.join(c.cwd, c.program)) : undefined;
    const dir = start && fs.existsSync(start) && !fs.statSync(start).isDirectory() ? path.dirname(start) : start;
    return dir ? moduleRoot(dir, fs.existsSync) : vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  }

  private async open(file: string, line: number): Promise<void> {
    if (!file) {
      return;
    }
    const abs = locate(file, this.root(), this.config?.program);
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(abs));
    const pos = new vscode.Position(Math.max(line - 1, 0), 0);
    await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.One, selection: new vscode.Range(pos, pos) });
  }

  /** Apply: a diff preview, the confirmation, then a WorkspaceEdit and save. */
  private async apply(): Promise<void> {
    const d = this.model.diagnosis;
    if (!d || !d.fix) {
      this.error('There is no fix to apply.');
      return;
    }
    const root = this.root();
    const patches = parseDiff(d.fix);
    const changes: Array<{ uri: vscode.Uri; doc: vscode.TextDocument; text: string; rel: string }> = [];
    for (const p of patches) {
      const rel = patchTarget(p);
      const uri = vscode.Uri.file(locate(rel, root, this.config?.program));
      const doc = await vscode.workspace.openTextDocument(uri);
      const text = applyPatch(doc.getText(), p);
      changes.push({ uri, doc, text, rel });
    }
    for (const c of changes) {
      const preview = vscode.Uri.from({ scheme: PatchedDocuments.scheme, path: c.uri.path });
      this.patched.set(preview, c.text);
      await vscode.commands.executeCommand('vscode.diff', c.uri, preview, `${path.basename(c.rel)}: current ↔ with adi's fix`, { preview: true, viewColumn: vscode.ViewColumn.One });
    }
    const files = changes.map((c) => c.rel).join(', ');
    const pick = await vscode.window.showInformationMessage(`adi: apply the fix to ${files}?`, 'Apply', 'Cancel');
    if (pick !== 'Apply') {
      this.notice('The fix was not applied.');
      return;
    }
    const edit = new vscode.WorkspaceEdit();
    for (const c of changes) {
      const current = c.doc.getText();
      const p = patches.find((x) => patchTarget(x) === c.rel)!;
      // The document may have changed while the preview was shown.
      const text = applyPatch(current, p);
      edit.replace(c.uri, new vscode.Range(c.doc.positionAt(0), c.doc.positionAt(current.length)), text);
    }
    if (!(await vscode.workspace.applyEdit(edit))) {
      this.error('VS Code refused the edit (is the file read-only?).');
      return;
    }
    for (const c of changes) {
      await c.doc.save();
    }
    this.notice(`Applied the fix to ${files} and saved. Press "Re-run tests" to check it.`);
    this.post(this.model.push({ type: 'applied', files }));
  }

  /** Re-run tests: the recorded command again, without adi, in a child process. */
  private async rerun(): Promise<void> {
    const c = this.config;
    if (!c) {
      this.error('No run to re-run: diagnose a test first.');
      return;
    }
    const go = goCommand();
    if (!go && c.mode !== 'exec') {
      this.error('The go command was not found (PATH, $GOROOT/bin, /usr/local/go/bin): install Go from https://go.dev/dl/.');
      return;
    }
    const r = rerunCommand(c, go ?? 'go');
    this.post({ type: 'rerun', text: 'running…', ok: undefined });
    this.log.appendLine(`$ ${[r.file, ...r.args].join(' ')}   (in ${r.cwd})`);
    const res = await new Promise<{ code: number | null; out: string; err?: Error }>((resolve) => {
      cp.execFile(r.file, r.args, { cwd: r.cwd, env: { ...process.env, ...(c.env ?? {}) }, timeout: 10 * 60 * 1000, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
        const code = err ? (typeof (err as any).code === 'number' ? (err as any).code : null) : 0;
        resolve({ code, out: String(stdout) + String(stderr), err: err && code === null ? err : undefined });
      });
    });
    this.log.append(res.out);
    if (res.err) {
      this.post(this.model.push({ type: 'rerun', text: `tests could not run: ${res.err.message}`, ok: false }));
      return;
    }
    const ok = res.code === 0;
    this.log.appendLine(ok ? 'ok: tests pass' : `tests fail (exit status ${res.code})`);
    this.post(this.model.push({ type: 'rerun', text: ok ? 'tests pass' : 'tests fail', ok }));
    this.notice((ok ? 'Tests pass: ' : 'Tests fail: ') + lastLines(res.out, 12));
  }

  dispose(): void {
    this.panel?.dispose();
    for (const d of this.disposables.splice(0)) {
      d.dispose();
    }
  }
}

function lastLines(s: string, n: number): string {
  const l = s.trimEnd().split('\n');
  return l.slice(-n).join('\n');
}
