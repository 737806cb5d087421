// The call tree: the recording around the inspected frame, from the root of
// its call stack, loaded a few levels at a time.

import * as vscode from 'vscode';
import { NodeJSON, TreeJSON } from './model';
import {
  TreeItemModel, TreeNode, childItems, describe, find, fromJSON, iconOf, insertChild, isExpandable,
  loadChildren, setCurrent, tooltip,
} from './modelTree';
import { Position, Positions, adiRequest, errorText, goToFrame } from './position';

const depthKey = 'adi.callTree.depth';
const defaultDepth = 2;

export class CallTree implements vscode.TreeDataProvider<TreeItemModel>, vscode.Disposable {
  static readonly id = 'adi.callTree';
  private readonly changed = new vscode.EventEmitter<TreeItemModel | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private view: vscode.TreeView<TreeItemModel> | undefined;
  private root: TreeNode | undefined;
  private rootSession: string | undefined;
  private readonly items = new Map<string, TreeItemModel>(); // frame items by fid, for reveal
  private shown = -1;
  private readonly disposables: vscode.Disposable[] = [this.changed];

  constructor(private readonly positions: Positions, private readonly state: vscode.Memento) {
    this.disposables.push(positions.onDidChange((p) => void this.update(p)));
  }

  attach(view: vscode.TreeView<TreeItemModel>): void {
    this.view = view;
    view.message = idle;
    this.disposables.push(view.onDidChangeVisibility(() => {
      const p = this.positions.current;
      if (view.visible && p && p.serial !== this.shown) void this.update(p);
    }));
  }

  get depth(): number {
    return this.state.get<number>(depthKey, defaultDepth);
  }

  async setDepth(): Promise<void> {
    const v = await vscode.window.showInputBox({
      title: 'adi: call tree depth',
      prompt: 'How many levels of callees each request loads (expanding a node loads more)',
      value: String(this.depth),
      validateInput: (s) => (/^\d+$/.test(s.trim()) && Number(s) >= 1 && Number(s) <= 50 ? undefined : 'a whole number from 1 to 50'),
    });
    if (v === undefined) return;
    await this.state.update(depthKey, Number(v.trim()));
    this.refresh();
  }

  refresh(): void {
    this.root = undefined;
    this.shown = -1;
    void this.update(this.positions.current);
  }

  private async update(p: Position | undefined): Promise<void> {
    if (!p) {
      this.root = undefined;
      this.rootSession = undefined;
      this.shown = -1;
      if (this.view) this.view.message = idle;
      this.changed.fire(undefined);
      return;
    }
    if (!this.view?.visible) return;
    this.shown = p.serial;
    const rootFid = p.chain[p.chain.length - 1];
    try {
      if (!this.root || this.rootSession !== p.session.id || this.root.fid !== rootFid) {
        const t = await adiRequest<TreeJSON>(p.session, 'adi/callTree', { fid: rootFid, depth: this.depth });
        if (!t.root) throw new Error('the adapter sent no tree');
        this.root = fromJSON(t.root, p.failures);
        this.rootSession = p.session.id;
        this.items.clear();
      }
      await this.loadChain(p);
      if (p.serial !== this.positions.current?.serial) return;
      const cur = setCurrent(this.root, p.fid);
      this.view.message = undefined;
      this.changed.fire(undefined);
      if (cur) {
        const item = this.itemOf(cur);
        await this.view.reveal(item, { select: true, focus: false, expand: false });
      }
    } catch (err) {
      if (p.serial !== this.positions.current?.serial) return;
      this.view.message = `adi: no call tree around ${p.fid}: ${errorText(err)}`;
      this.changed.fire(undefined);
    }
  }

  /** Loads the nodes from the root down to the inspected frame. */
  private async loadChain(p: Position): Promise<void> {
    let node = this.root!;
    for (let i = p.chain.length - 2; i >= 0; i--) {
      const fid = p.chain[i];
      if (node.children === undefined) await this.load(node, p);
      let next = node.children?.find((c) => c.fid === fid);
      if (!next) {
        // Left out of a long list of callees: load it on its own.
        const t = await adiRequest<TreeJSON>(p.session, 'adi/callTree', { fid, depth: this.depth });
        if (!t.root) return;
        next = fromJSON(t.root, p.failures, node);
        insertChild(node, next);
      }
      node = next;
    }
  }

  private async load(node: TreeNode, p: Position): Promise<void> {
    const t = await adiRequest<TreeJSON>(p.session, 'adi/callTree', { fid: node.fid, depth: this.depth });
    if (t.root) loadChildren(node, t.root as NodeJSON, p.failures);
  }

  private itemOf(node: TreeNode): TreeItemModel {
    let it = this.items.get(node.fid);
    if (!it || it.kind !== 'frame' || it.node !== node) {
      it = { kind: 'frame', node };
      this.items.set(node.fid, it);
    }
    return it;
  }

  getTreeItem(e: TreeItemModel): vscode.TreeItem {
    if (e.kind === 'more') {
      const it = new vscode.TreeItem(`… ${e.count} more call${e.count === 1 ? '' : 's'} not shown`, vscode.TreeItemCollapsibleState.None);
      it.id = `${e.parent.fid}\u0000more`;
      it.tooltip = `adi shows the first and last callees of a long list; use the Timeline or "frames FUNC" in the Debug Console for the others`;
      it.iconPath = new vscode.ThemeIcon('ellipsis');
      return it;
    }
    const n = e.node;
    const state = !isExpandable(n)
      ? vscode.TreeItemCollapsibleState.None
      : n.status !== 'ok' || this.onCurrentPath(n)
        ? vscode.TreeItemCollapsibleState.Expanded
        : vscode.TreeItemCollapsibleState.Collapsed;
    const it = new vscode.TreeItem(n.label, state);
    it.id = n.fid;
    it.description = describe(n);
    it.tooltip = tooltip(n);
    const icon = iconOf(n);
    it.iconPath = new vscode.ThemeIcon(icon.id, icon.color ? new vscode.ThemeColor(icon.color) : undefined);
    it.contextValue = n.status === 'ok' ? 'adiFrame' : 'adiFrameFailing';
    it.command = { command: 'adi.callTree.goTo', title: 'Go to Frame', arguments: [n.fid] };
    return it;
  }

  /** Whether the inspected frame is below n. */
  private onCurrentPath(n: TreeNode): boolean {
    const fid = this.positions.current?.fid;
    return !!fid && !!find(n, fid) && n.fid !== fid;
  }

  async getChildren(e?: TreeItemModel): Promise<TreeItemModel[]> {
    if (!this.root) return [];
    if (!e) return [this.itemOf(this.root)];
    if (e.kind !== 'frame') return [];
    const n = e.node;
    if (n.children === undefined && n.hidden > 0) {
      const p = this.positions.current;
      if (!p) return [];
      try {
        await this.load(n, p);
      } catch (err) {
        void vscode.window.showErrorMessage(`adi: cannot load the callees of ${n.fid}: ${errorText(err)}`);
        return [];
      }
    }
    return childItems(n).map((c) => (c.kind === 'frame' ? this.itemOf(c.node) : c));
  }

  getParent(e: TreeItemModel): TreeItemModel | undefined {
    const p = e.kind === 'frame' ? e.node.parent : e.parent;
    return p ? this.itemOf(p) : undefined;
  }

  goTo(fid: string): Promise<void> {
    return goToFrame(this.positions.current?.session, fid);
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}

const idle = 'No adi debug session is stopped: the call tree of the recording shows here once one is.';
