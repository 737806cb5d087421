// The adi views: the frame view, the call tree and the timeline, in the
// "adi" view container. They follow the active adi debug session: each
// stop moves them to the inspected frame; clicking a callee, a node or a
// frame on the timeline moves the session there (adi/stepInto), and the
// editor, Call Stack and Variables follow its stopped event.

import * as vscode from 'vscode';
import { CallTree } from './callTree';
import { FrameView } from './frameView';
import { AdiSessionsLike, Positions } from './position';
import { Timeline } from './timeline';

export function activateViews(context: vscode.ExtensionContext, sessions: AdiSessionsLike): void {
  const positions = new Positions(sessions);
  const frame = new FrameView(positions);
  const tree = new CallTree(positions, context.workspaceState);
  const timeline = new Timeline(positions);
  const treeView = vscode.window.createTreeView(CallTree.id, { treeDataProvider: tree, showCollapseAll: true });
  tree.attach(treeView);
  context.subscriptions.push(
    positions, frame, tree, timeline, treeView,
    vscode.window.registerWebviewViewProvider(FrameView.id, frame),
    vscode.window.registerWebviewViewProvider(Timeline.id, timeline),
    vscode.commands.registerCommand('adi.frameView.refresh', () => frame.refresh()),
    vscode.commands.registerCommand('adi.callTree.refresh', () => tree.refresh()),
    vscode.commands.registerCommand('adi.callTree.setDepth', () => tree.setDepth()),
    vscode.commands.registerCommand('adi.callTree.goTo', (fid: unknown) => {
      if (typeof fid === 'string') return tree.goTo(fid);
      return undefined;
    }),
    vscode.commands.registerCommand('adi.timeline.refresh', () => timeline.refresh()),
  );
}
