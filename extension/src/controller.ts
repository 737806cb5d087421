// Starting adi sessions for a test and sending them the agent's requests:
// shared by the CodeLens commands, the chat panel, the @adi participant
// and the language-model tools.
import * as path from 'path';
import * as vscode from 'vscode';
import { LaunchConfig, testConfig } from './config';
import { AdiSessions } from './sessions';
import { testAt } from './testfuncs';

/** The {uri?, test?} argument of adi.debugTest and adi.diagnoseTest. */
export interface TestTarget {
  uri?: vscode.Uri | string;
  test?: string;
}

let tagCounter = 0;

/** startDebugging said no: VS Code or the configuration provider has told the user why. */
export class NotStartedError extends Error {}

export class Controller {
  constructor(readonly sessions: AdiSessions, private readonly log: vscode.OutputChannel) {}

  /** The file and test a command is about: its argument, else the active editor and the test under the cursor. */
  target(arg?: TestTarget): { file: string; test?: string } | { error: string } {
    let uri: vscode.Uri | undefined;
    if (arg?.uri) {
      uri = typeof arg.uri === 'string' ? (arg.uri.includes('://') ? vscode.Uri.parse(arg.uri) : vscode.Uri.file(arg.uri)) : arg.uri;
    }
    const ed = vscode.window.activeTextEditor;
    if (!uri && ed && ed.document.uri.scheme === 'file') {
      uri = ed.document.uri;
    }
    if (!uri || !uri.fsPath.endsWith('.go')) {
      return { error: 'adi: open a Go test file (…_test.go) and put the cursor in a test, or click "debug with adi" / "diagnose with adi" above a test' };
    }
    let test = arg?.test;
    if (!test && ed && ed.document.uri.fsPath === uri.fsPath) {
      test = testAt(ed.document.getText(), ed.selection.active.line);
    }
    return { file: uri.fsPath, test };
  }

  /** Starts an adi session for the test; resolves with it once it has stopped (its recording made). */
  start(file: string, test: string | undefined, diagnose: boolean): Promise<vscode.DebugSession> {
    return this.startConfig(testConfig(file, test, diagnose));
  }

  /** Starts an adi session; resolves with it once it has stopped. */
  async startConfig(config: LaunchConfig): Promise<vscode.DebugSession> {
    const what = config.testRun || path.basename(config.program ?? '');
    const tag = `adi-${Date.now()}-${++tagCounter}`;
    config.adiTag = tag;
    const folder = config.program ? vscode.workspace.getWorkspaceFolder(vscode.Uri.file(config.program)) : undefined;
    const subs: vscode.Disposable[] = [];
    const done = () => subs.splice(0).forEach((d) => d.dispose());
    const stopped = new Promise<vscode.DebugSession>((resolve, reject) => {
      subs.push(this.sessions.onDidStop(({ session }) => {
        if (session.configuration.adiTag === tag) {
          done();
          resolve(session);
        }
      }));
      subs.push(this.sessions.onDidEnd((session) => {
        if (session.configuration.adiTag === tag) {
          done();
          reject(new Error(`the adi session for ${what} ended before it stopped: see the Debug Console for why (the recording failed?)`));
        }
      }));
    });
    this.log.appendLine(`starting an adi session: ${config.name} (program ${config.program}${config.testRun ? `, -run ${config.testRun}` : ''})`);
    let ok = false;
    try {
      ok = await vscode.debug.startDebugging(folder, config as vscode.DebugConfiguration);
    } finally {
      if (!ok) {
        done();
      }
    }
    if (!ok) {
      throw new NotStartedError('the adi debug session did not start: see the notifications and the Debug Console');
    }
    return stopped;
  }

  /**
   * The session to diagnose file's test with: the active adi session when
   * it records the same package and test, else a new one.
   */
  async sessionFor(file: string, test: string | undefined): Promise<vscode.DebugSession> {
    const a = this.sessions.active();
    const want = testConfig(file, test, true);
    const same = (p: unknown) => typeof p === 'string' && path.resolve(a?.configuration.cwd ?? '', p) === path.resolve(want.program ?? '');
    if (a && (a.configuration.mode ?? 'test') === 'test' && same(a.configuration.program) && (a.configuration.testRun ?? '') === (want.testRun ?? '')) {
      return this.sessions.hasStopped(a) ? a : this.waitStopped(a);
    }
    return this.start(file, test, true);
  }

  /** Resolves once session has stopped (at once if it has). */
  waitStopped(session: vscode.DebugSession): Promise<vscode.DebugSession> {
    if (this.sessions.hasStopped(session)) {
      return Promise.resolve(session);
    }
    return new Promise((resolve, reject) => {
      const subs: vscode.Disposable[] = [];
      const done = () => subs.forEach((d) => d.dispose());
      subs.push(this.sessions.onDidStop((e) => {
        if (e.session.id === session.id) {
          done();
          resolve(session);
        }
      }));
      subs.push(this.sessions.onDidEnd((s) => {
        if (s.id === session.id) {
          done();
          reject(new Error('the adi session ended before its recording was made'));
        }
      }));
    });
  }

  /** Sends adi/diagnose (a follow-up when question is not empty). */
  diagnose(session: vscode.DebugSession, question: string): Promise<any> {
    return Promise.resolve(session.customRequest('adi/diagnose', question.trim() ? { question: question.trim() } : {}));
  }

  /** Sends adi/cancel: the running adi/diagnose ends with "cancelled". */
  cancel(session: vscode.DebugSession): Promise<any> {
    return Promise.resolve(session.customRequest('adi/cancel', {}));
  }
}
