// AdiSessions tracks the adi debug sessions through a DebugAdapterTracker
// and fires typed events for what the adapter sends: stopped, the agent's
// adi/agent events and adi/sourceChanged. The views, the chat panel and the
// chat participant all listen here.
import * as vscode from 'vscode';

/** A DAP event of an adi session. */
export interface SessionEvent<B = any> {
  session: vscode.DebugSession;
  body: B;
}

export class AdiSessions implements vscode.Disposable {
  private readonly stopEmitter = new vscode.EventEmitter<SessionEvent>();
  private readonly endEmitter = new vscode.EventEmitter<vscode.DebugSession>();
  private readonly agentEmitter = new vscode.EventEmitter<SessionEvent>();
  private readonly sourceEmitter = new vscode.EventEmitter<SessionEvent>();
  private readonly startEmitter = new vscode.EventEmitter<vscode.DebugSession>();
  private readonly live = new Map<string, vscode.DebugSession>();
  private readonly stoppedOnce = new Set<string>();
  private readonly disposables: vscode.Disposable[] = [];

  /** Fired after each DAP stopped event of an adi session. */
  readonly onDidStop: vscode.Event<SessionEvent> = this.stopEmitter.event;
  /** Fired when an adi session ends. */
  readonly onDidEnd: vscode.Event<vscode.DebugSession> = this.endEmitter.event;
  /** Fired for each adi/agent event (body: an agent event). */
  readonly onAgentEvent: vscode.Event<SessionEvent> = this.agentEmitter.event;
  /** Fired for each adi/sourceChanged event. */
  readonly onSourceChanged: vscode.Event<SessionEvent> = this.sourceEmitter.event;
  /** Fired when an adi session starts (before it has stopped). */
  readonly onDidStart: vscode.Event<vscode.DebugSession> = this.startEmitter.event;

  constructor() {
    this.disposables.push(
      vscode.debug.registerDebugAdapterTrackerFactory('adi', {
        createDebugAdapterTracker: (session) => this.tracker(session),
      }),
      vscode.debug.onDidTerminateDebugSession((s) => this.ended(s)),
      this.stopEmitter, this.endEmitter, this.agentEmitter, this.sourceEmitter, this.startEmitter,
    );
  }

  /**
   * The adi session the user works with: VS Code's active debug session
   * when it is an adi one, else the most recently started adi session.
   */
  active(): vscode.DebugSession | undefined {
    const a = vscode.debug.activeDebugSession;
    if (a && a.type === 'adi' && this.live.has(a.id)) {
      return a;
    }
    let last: vscode.DebugSession | undefined;
    for (const s of this.live.values()) {
      last = s;
    }
    return last;
  }

  /** Whether session has stopped at least once (its recording is made). */
  hasStopped(session: vscode.DebugSession): boolean {
    return this.stoppedOnce.has(session.id);
  }

  /** The live adi sessions, oldest first. */
  all(): vscode.DebugSession[] {
    return [...this.live.values()];
  }

  private tracker(session: vscode.DebugSession): vscode.DebugAdapterTracker {
    return {
      onWillStartSession: () => {
        this.live.set(session.id, session);
        this.startEmitter.fire(session);
      },
      onDidSendMessage: (m: any) => {
        if (!m || m.type !== 'event') {
          return;
        }
        switch (m.event) {
          case 'stopped':
            this.stoppedOnce.add(session.id);
            this.stopEmitter.fire({ session, body: m.body ?? {} });
            break;
          case 'adi/agent':
            this.agentEmitter.fire({ session, body: m.body ?? {} });
            break;
          case 'adi/sourceChanged':
            this.sourceEmitter.fire({ session, body: m.body ?? {} });
            break;
        }
      },
      onWillStopSession: () => this.ended(session),
      onExit: () => this.ended(session),
    };
  }

  private ended(session: vscode.DebugSession): void {
    if (session.type !== 'adi' || !this.live.delete(session.id)) {
      return;
    }
    this.stoppedOnce.delete(session.id);
    this.endEmitter.fire(session);
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) {
      d.dispose();
    }
  }
}
