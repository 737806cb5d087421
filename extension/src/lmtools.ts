// Where VS Code has vscode.lm.registerTool: the ADI commands as
// language-model tools, so that an agent in the Chat view can drive the
// active adi session (adi/* custom requests).
import * as vscode from 'vscode';
import { AdiSessions } from './sessions';
import { TOOLS } from './toolnames';

export function registerTools(context: vscode.ExtensionContext, sessions: AdiSessions): boolean {
  const lm = (vscode as any).lm;
  const api = vscode as any;
  if (!lm || typeof lm.registerTool !== 'function' || !api.LanguageModelToolResult || !api.LanguageModelTextPart) {
    return false;
  }
  for (const [name, command] of Object.entries(TOOLS)) {
    context.subscriptions.push(lm.registerTool(name, {
      invoke: async (options: { input?: Record<string, unknown> }) => {
        const s = sessions.active();
        if (!s) {
          throw new Error('no adi debug session is running: start one (the "debug with adi" CodeLens above a test, or an "adi" launch configuration), then call this tool again');
        }
        const body = await s.customRequest(command, options.input ?? {});
        const text = typeof body?.text === 'string' ? body.text : JSON.stringify(body ?? {});
        return new api.LanguageModelToolResult([new api.LanguageModelTextPart(text)]);
      },
      prepareInvocation: (options: { input?: Record<string, unknown> }) => ({
        invocationMessage: `adi: ${command.slice(4)} ${JSON.stringify(options.input ?? {})}`,
      }),
    }));
  }
  return true;
}
