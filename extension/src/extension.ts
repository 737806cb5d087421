// The adi extension: debug Go with adi from VS Code.
import * as vscode from 'vscode';
import { ChatPanel } from './chat';
import { errorText } from './panel';
import { TestCodeLens } from './codelens';
import { Controller, NotStartedError, TestTarget } from './controller';
import { AdiConfigurationProvider, AdiDescriptorFactory, installAdi, SECRET_KEY } from './debug';
import { registerTools } from './lmtools';
import { registerParticipant } from './participant';
import { AdiSessions } from './sessions';
import { activateViews } from './views';

export function activate(context: vscode.ExtensionContext): void {
  const log = vscode.window.createOutputChannel('adi');
  const sessions = new AdiSessions();
  context.subscriptions.push(log, sessions);

  context.subscriptions.push(
    vscode.debug.registerDebugAdapterDescriptorFactory('adi', new AdiDescriptorFactory(context.secrets, log)),
    vscode.debug.registerDebugConfigurationProvider('adi', new AdiConfigurationProvider()),
    vscode.commands.registerCommand('adi.setApiKey', async () => {
      const key = await vscode.window.showInputBox({
        title: 'adi: LLM API key',
        prompt: 'The API key of the OpenAI-compatible endpoint (stored in VS Code\'s secret storage, passed only to adi dap). Empty: remove it.',
        password: true,
        ignoreFocusOut: true,
      });
      if (key === undefined) {
        return;
      }
      if (key.trim() === '') {
        await context.secrets.delete(SECRET_KEY);
        void vscode.window.showInformationMessage('adi: the LLM API key was removed; diagnoses use the offline diagnoser.');
      } else {
        await context.secrets.store(SECRET_KEY, key.trim());
        void vscode.window.showInformationMessage('adi: the LLM API key is stored; it applies from the next debug session.');
      }
    }),
    vscode.commands.registerCommand('adi.clearApiKey', async () => {
      await context.secrets.delete(SECRET_KEY);
      void vscode.window.showInformationMessage('adi: the LLM API key was removed; diagnoses use the offline diagnoser.');
    }),
    vscode.commands.registerCommand('adi.buildAdapter', () => installAdi()),
  );

  const ctl = new Controller(sessions, log);
  const chat = new ChatPanel(context, ctl, log);
  context.subscriptions.push(
    chat,
    vscode.languages.registerCodeLensProvider({ language: 'go', scheme: 'file', pattern: '**/*_test.go' }, new TestCodeLens()),
    vscode.commands.registerCommand('adi.openChat', () => chat.show()),
    vscode.commands.registerCommand('adi.diagnoseTest', (arg?: TestTarget) => chat.diagnoseTest(arg)),
    vscode.commands.registerCommand('adi.debugTest', async (arg?: TestTarget) => {
      const t = ctl.target(arg);
      if ('error' in t) {
        void vscode.window.showErrorMessage(t.error);
        return;
      }
      try {
        await ctl.start(t.file, t.test, false);
      } catch (e) {
        if (!(e instanceof NotStartedError)) {
          void vscode.window.showErrorMessage('adi: ' + errorText(e));
        }
      }
    }),
  );
  activateViews(context, sessions);
  watchSources(context, sessions);
  const extras = [registerParticipant(context, ctl) ? '@adi chat participant' : '', registerTools(context, sessions) ? 'language-model tools' : '']
    .filter((x) => x !== '');
  log.appendLine(`adi activated${extras.length ? ' with ' + extras.join(' and ') : ' (no chat API here: no @adi participant, no language-model tools)'}`);
}

/**
 * On adi/sourceChanged, offer to record again: the session is stopped and
 * started anew with the same configuration (VS Code keeps the
 * breakpoints). One offer per session at a time.
 */
function watchSources(context: vscode.ExtensionContext, sessions: AdiSessions): void {
  const offering = new Set<string>();
  context.subscriptions.push(sessions.onSourceChanged(async ({ session }) => {
    if (offering.has(session.id)) {
      return;
    }
    offering.add(session.id);
    try {
      const pick = await vscode.window.showWarningMessage('Sources changed since the recording — re-record?', 'Re-record');
      if (pick !== 'Re-record' || !sessions.all().some((s) => s.id === session.id)) {
        return;
      }
      const config = { ...session.configuration };
      const folder = session.workspaceFolder;
      await vscode.debug.stopDebugging(session);
      await vscode.debug.startDebugging(folder, config);
    } finally {
      offering.delete(session.id);
    }
  }));
}

export function deactivate(): void {
  // Everything is in the context's subscriptions.
}
