// A minimal stand-in for the vscode module, for the tests of the few
// modules whose logic is tied to the editor's API (AdiSessions, the @adi
// participant, the language-model tools). Importing this file installs it:
// import it before the modules under test, and load those with require.
import Module = require('node:module');

type Listener<T> = (e: T) => void;

export class EventEmitter<T> {
  private listeners: Array<Listener<T>> = [];
  event = (l: Listener<T>) => {
    this.listeners.push(l);
    return { dispose: () => { this.listeners = this.listeners.filter((x) => x !== l); } };
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) {
      l(e);
    }
  }
  dispose(): void {
    this.listeners = [];
  }
}

export const terminate = new EventEmitter<any>();
export const trackerFactories = new Map<string, any>();
export const participants: Array<{ id: string; handler: any; iconPath?: unknown }> = [];
export const tools = new Map<string, any>();

export const stub = {
  EventEmitter,
  Uri: {
    joinPath: (base: any, ...parts: string[]) => ({ path: [base?.path ?? '', ...parts].join('/') }),
  },
  debug: {
    activeDebugSession: undefined as any,
    registerDebugAdapterTrackerFactory(type: string, f: any) {
      trackerFactories.set(type, f);
      return { dispose: () => trackerFactories.delete(type) };
    },
    onDidTerminateDebugSession: terminate.event,
  },
  window: { activeTextEditor: undefined as any },
  workspace: { getWorkspaceFolder: () => undefined },
  chat: {
    createChatParticipant(id: string, handler: any) {
      const p = { id, handler, iconPath: undefined as unknown, dispose() {} };
      participants.push(p);
      return p;
    },
  },
  lm: {
    registerTool(name: string, impl: any) {
      tools.set(name, impl);
      return { dispose: () => tools.delete(name) };
    },
  },
  LanguageModelTextPart: class { constructor(readonly value: string) {} },
  LanguageModelToolResult: class { constructor(readonly content: unknown[]) {} },
};

const load = (Module as any)._load;
(Module as any)._load = function (request: string, ...rest: unknown[]) {
  return request === 'vscode' ? stub : load.call(this, request, ...rest);
};
