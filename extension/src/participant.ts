// Where VS Code has the chat API: the @adi participant, which streams the
// diagnosis of the active adi session (or of the test under the cursor)
// into the Chat view.
import * as vscode from 'vscode';
import { Controller } from './controller';
import { AgentEvent, diagnosisMarkdown, errorText, mdEscape } from './panel';

export function registerParticipant(context: vscode.ExtensionContext, ctl: Controller): boolean {
  const chat = (vscode as any).chat;
  if (!chat || typeof chat.createChatParticipant !== 'function') {
    return false;
  }
  const handler = async (request: any, _ctx: any, stream: any, token: vscode.CancellationToken) => {
    let session = ctl.sessions.active();
    try {
      if (!session) {
        const t = ctl.target();
        if ('error' in t) {
          stream.markdown('No adi debug session is running. ' + mdEscape(t.error));
          return {};
        }
        stream.progress(`Recording ${t.test ?? 'the tests'} with adi…`);
        session = await ctl.sessionFor(t.file, t.test);
      } else {
        await ctl.waitStopped(session);
      }
    } catch (e) {
      stream.markdown('adi: ' + mdEscape(errorText(e)));
      return {};
    }
    const s = session;
    let text = '';
    const flush = () => {
      if (text) {
        stream.markdown(mdEscape(text));
        text = '';
      }
    };
    const sub = ctl.sessions.onAgentEvent(({ session: from, body }) => {
      if (from.id !== s.id) {
        return;
      }
      const e = body as AgentEvent;
      switch (e.kind) {
        case 'text':
          text += e.text ?? '';
          if (text.includes('\n')) {
            flush();
          }
          break;
        case 'toolCall':
          flush();
          stream.progress(`adi ${e.tool ?? ''} ${e.args ? JSON.stringify(e.args) : ''}`);
          break;
        case 'diagnosis':
          flush();
          if (e.diagnosis) {
            stream.markdown('\n\n' + diagnosisMarkdown(e.diagnosis));
          }
          break;
        case 'error':
          flush();
          stream.markdown('\n\nadi: ' + mdEscape(e.text ?? 'the diagnosis failed'));
          break;
      }
    });
    const cancel = token.onCancellationRequested(() => void ctl.cancel(s));
    try {
      await ctl.diagnose(s, String(request.prompt ?? ''));
    } catch {
      // The error event said why.
    } finally {
      flush();
      sub.dispose();
      cancel.dispose();
    }
    return {};
  };
  const p = chat.createChatParticipant('adi.chat', handler);
  p.iconPath = vscode.Uri.joinPath(context.extensionUri, 'media', 'adi.svg');
  context.subscriptions.push(p);
  return true;
}
