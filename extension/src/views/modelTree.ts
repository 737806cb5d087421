// The call tree's logic, free of the vscode module: adi/callTree answers
// turned into nodes that know their parent, how the frame ended and
// whether it lies on a failing or panicking path.

import { NodeJSON, ValueJSON, formatArgs, outcomeText, shortName } from './model';

/**
 * failed: the frame itself failed (panicked, t.FailNow, a failed test);
 * path: a callee below it failed; ok: neither.
 */
export type Status = 'failed' | 'path' | 'ok';

/** What adi/outcome says about how the run ended (the parts used here). */
export interface OutcomeJSON {
  exit_code: number;
  panic: null | { value: string; goroutine: number; frame: string | null; stack: { func: string; file: string; line: number; fid: string | null }[] };
  failed_tests: string[];
  output?: string;
  killed?: boolean;
  partial?: string;
}

/** The failures of a run, to mark frames with. */
export interface Failures {
  /** Names of failed tests and subtests: TestX, TestX/case. */
  tests: Set<string>;
  /** The frame that panicked the run, if it did. */
  panicFrame?: string;
  /** The recorded frames on the stack of the run's panic. */
  panicStack: Set<string>;
}

export function failuresOf(o: OutcomeJSON | null | undefined): Failures {
  const f: Failures = { tests: new Set(o?.failed_tests ?? []), panicStack: new Set() };
  if (o?.panic) {
    if (o.panic.frame) f.panicFrame = o.panic.frame;
    for (const e of o.panic.stack ?? []) if (e.fid) f.panicStack.add(e.fid);
  }
  return f;
}

/** The test a frame's function is, when it is one: pkg.TestX#1 → TestX. */
export function testName(fid: string): string | undefined {
  const fn = shortName(fid).replace(/#\d+$/, '');
  const name = fn.slice(fn.lastIndexOf('.') + 1);
  return /^(Test|Example|Fuzz)/.test(name) && !fn.includes('(') ? name : undefined;
}

/** Whether the frame itself failed. */
export function ownFailure(n: { fid: string; exit: string }, f: Failures): boolean {
  if (n.exit === 'panicked' || n.exit === 'goexit') return true;
  if (f.panicFrame === n.fid) return true;
  const t = testName(n.fid);
  return t !== undefined && f.tests.has(t);
}

export interface TreeNode {
  fid: string;
  label: string;
  args: ValueJSON[];
  results: ValueJSON[];
  exit: string;
  panic: string | null;
  goroutine: number;
  spawn: boolean;
  status: Status;
  parent?: TreeNode;
  /** The children shown; undefined until loaded (hidden > 0 then). */
  children?: TreeNode[];
  /** Direct callees not shown: left out of the middle (at moreAfter) or, with children undefined, not loaded yet. */
  hidden: number;
  moreAfter: number;
  current: boolean;
}

/** Converts an adi/callTree node and the nodes below it. */
export function fromJSON(n: NodeJSON, failures: Failures, parent?: TreeNode): TreeNode {
  const t: TreeNode = {
    fid: n.fid,
    label: shortName(n.fid),
    args: n.args ?? [],
    results: n.results ?? [],
    exit: n.exit,
    panic: n.panic,
    goroutine: n.goroutine,
    spawn: !!n.spawn,
    status: ownFailure(n, failures) ? 'failed' : failures.panicStack.has(n.fid) ? 'path' : 'ok',
    parent,
    hidden: n.more ?? 0,
    moreAfter: n.more_after ?? 0,
    current: false,
  };
  const kids = n.children ?? [];
  // A node with hidden callees and none shown was cut by the depth: its
  // children are loaded when it is expanded.
  t.children = kids.length === 0 && t.hidden > 0 ? undefined : kids.map((k) => fromJSON(k, failures, t));
  if (t.children === undefined) t.moreAfter = 0;
  for (const k of t.children ?? []) if (k.status !== 'ok') markPath(t);
  return t;
}

/** Marks n and its ancestors as on a failing path (keeping 'failed'). */
export function markPath(n: TreeNode | undefined): void {
  for (let p = n; p; p = p.parent) {
    if (p.status === 'ok') p.status = 'path';
  }
}

/**
 * Fills in the children of a node cut by the depth, from an adi/callTree
 * answer rooted at it; the failures below mark the path above.
 */
export function loadChildren(t: TreeNode, answer: NodeJSON, failures: Failures): void {
  const fresh = fromJSON(answer, failures, t.parent);
  t.children = (fresh.children ?? []).map((c) => {
    c.parent = t;
    return c;
  });
  t.hidden = fresh.hidden;
  t.moreAfter = fresh.moreAfter;
  if (fresh.children === undefined) t.children = undefined;
  if (fresh.status === 'failed') t.status = 'failed';
  for (const c of t.children ?? []) if (c.status !== 'ok') markPath(t);
}

/** An item of the tree: a frame, or the callees left out of a long list. */
export type TreeItemModel =
  | { kind: 'frame'; node: TreeNode }
  | { kind: 'more'; parent: TreeNode; count: number };

/** The items under a node (or the root's item for undefined). */
export function childItems(t: TreeNode): TreeItemModel[] {
  const kids = t.children ?? [];
  const items: TreeItemModel[] = kids.map((node) => ({ kind: 'frame', node }));
  if (t.children !== undefined && t.hidden > 0) {
    const at = t.moreAfter > 0 ? Math.min(t.moreAfter, items.length) : items.length;
    items.splice(at, 0, { kind: 'more', parent: t, count: t.hidden });
  }
  return items;
}

export function isExpandable(t: TreeNode): boolean {
  return t.children === undefined ? t.hidden > 0 : t.children.length > 0 || t.hidden > 0;
}

/** The item's description: arguments and how the frame ended. */
export function describe(t: TreeNode): string {
  const marks = [t.current ? '◀ inspected' : '', t.spawn ? 'go' : ''].filter((s) => s !== '');
  return `(${formatArgs(t.args)}) ${outcomeText(t)}${marks.length ? '  ' + marks.join(' ') : ''}`;
}

export function tooltip(t: TreeNode): string {
  const lines = [t.fid];
  for (const a of t.args) lines.push(`  ${a.name} ${a.type} = ${a.value}`);
  lines.push(outcomeText(t));
  for (const r of t.results) if (t.exit === 'returned') lines.push(`  ${r.name.startsWith('~') ? '' : r.name + ' '}${r.type} = ${r.value}`);
  lines.push(`goroutine ${t.goroutine}${t.spawn ? ' (started by a go statement)' : ''}`);
  if (t.status === 'failed') lines.push('this frame failed');
  if (t.status === 'path') lines.push('a frame below this one failed');
  return lines.join('\n');
}

/** The codicon and theme colour of a node's icon. */
export function iconOf(t: TreeNode): { id: string; color?: string } {
  switch (t.status) {
    case 'failed':
      return { id: 'error', color: 'testing.iconFailed' };
    case 'path':
      return { id: 'arrow-circle-down', color: 'testing.iconFailed' };
  }
  if (t.current) return { id: 'debug-stackframe-focused', color: 'debugIcon.stepIntoForeground' };
  return { id: t.spawn ? 'debug-start' : 'symbol-function' };
}

/** Finds the node of fid among the loaded ones. */
export function find(t: TreeNode, fid: string): TreeNode | undefined {
  if (t.fid === fid) return t;
  for (const c of t.children ?? []) {
    const f = find(c, fid);
    if (f) return f;
  }
  return undefined;
}

/**
 * Places a node loaded on its own (a frame of the inspected frame's call
 * stack that the parent's list left out) among its parent's children, where
 * the left-out callees are.
 */
export function insertChild(parent: TreeNode, child: TreeNode): void {
  child.parent = parent;
  if (parent.children === undefined) parent.children = [];
  if (parent.children.some((c) => c.fid === child.fid)) return;
  const at = parent.moreAfter > 0 ? Math.min(parent.moreAfter, parent.children.length) : parent.children.length;
  parent.children.splice(at, 0, child);
  if (parent.hidden > 0) parent.hidden--;
  if (parent.moreAfter > 0) parent.moreAfter++;
  if (child.status !== 'ok') markPath(parent);
}

/** Sets the current mark on exactly the node of fid. */
export function setCurrent(t: TreeNode, fid: string | undefined): TreeNode | undefined {
  let found: TreeNode | undefined;
  const walk = (n: TreeNode) => {
    n.current = n.fid === fid;
    if (n.current) found = n;
    for (const c of n.children ?? []) walk(c);
  };
  walk(t);
  return found;
}
