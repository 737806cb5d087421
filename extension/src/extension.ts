// The adi extension: debug Go with adi from VS Code.
import * as vscode from 'vscode';
import { AdiConfigurationProvider, AdiDescriptorFactory, installAdi, SECRET_KEY } from './debug';
import { AdiSessions } from './sessions';

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
}

export function deactivate(): void {
  // Everything is in the context's subscriptions.
}
