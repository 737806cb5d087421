// Unit tests of the adi views' logic (extension/src/views/model*.ts): the
// frame view's model and HTML, the call tree's failing paths and lazy
// loading, the timeline's layout. No vscode module is involved.

import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import {
  FLTJSON, NodeJSON, TreeJSON, escapeHtml, fidOfFrameName, frameHtml, frameModel, isTruncatedAnswer, makeNonce,
  outcomeText, pickStep, shortName, stackEntries, webviewDocument,
} from '../../src/views/model';
import {
  OutcomeJSON, TreeNode, childItems, describe, failuresOf, find, fromJSON, iconOf, insertChild, isExpandable,
  loadChildren, setCurrent, testName,
} from '../../src/views/modelTree';
import { flatten, layout, onChart, timelineSvg } from '../../src/views/modelTimeline';
import {
  nilptrGreetingsFLT, nilptrOutcome, nilptrTree, offbyoneSumFirstFLT, offbyoneTestFLT, offbyoneTestTree1,
} from './views_fixtures';

const pkg = 'github.com/adi-go/adi/testdata/';
const sumFirst = offbyoneSumFirstFLT as FLTJSON;
const noFailures = failuresOf(undefined);

test('views: the frame model keeps statements in order with the skipped iterations in their place', () => {
  const m = frameModel(sumFirst, 4);
  assert.equal(m.label, 'offbyone.SumFirst#1');
  assert.match(m.args, /^xs=\[\]int\{1, 4, 7.*, n=25$/);
  assert.equal(m.outcome, '→ 852');
  const kinds = m.rows.map((r) => (r.kind === 'step' ? `${r.line}` : `skip${r.line}x${r.iterations}`));
  // SumFirst's trace: total := 0; the first iteration; 22 iterations
  // skipped after step 2; the last iteration and the loop's exit; return.
  assert.deepEqual(kinds, ['20', '21', '22', 'skip21x22', '21', '22', '21', '24']);
  const current = m.rows.filter((r) => r.kind === 'step' && r.current);
  assert.equal(current.length, 1);
  assert.equal(current[0].kind === 'step' && current[0].index, 4);
  const step4 = m.rows[5];
  assert.ok(step4.kind === 'step');
  assert.deepEqual(step4.changes, [{ name: 'total', old: '782', value: '852', type: 'int' }]);
  assert.equal(step4.iteration, 24);
  const created = m.rows[0];
  assert.ok(created.kind === 'step');
  assert.equal(created.changes[0].old, null);
});

test('views: callees carry their arguments and results from the call tree', () => {
  const m = frameModel(offbyoneTestFLT as FLTJSON, 1, (offbyoneTestTree1 as TreeJSON).root);
  const step1 = m.rows[1];
  assert.ok(step1.kind === 'step');
  assert.equal(step1.stmt, 'got := SumFirst(xs, 25)');
  assert.equal(step1.callees.length, 1);
  assert.equal(step1.callees[0].fid, pkg + 'offbyone.SumFirst#1');
  assert.equal(step1.callees[0].label, 'offbyone.SumFirst#1');
  assert.match(step1.callees[0].args, /n=25$/);
  assert.equal(step1.callees[0].outcome, '→ 852');
  // Without the tree, the callee still shows (and is clickable), without a result.
  const bare = frameModel(offbyoneTestFLT as FLTJSON, 1);
  const c = bare.rows[1].kind === 'step' ? bare.rows[1].callees[0] : undefined;
  assert.equal(c?.fid, pkg + 'offbyone.SumFirst#1');
  assert.equal(c?.outcome, '');
});

test('views: a panicked frame says so and its failing callee is marked', () => {
  const m = frameModel(nilptrGreetingsFLT as FLTJSON, 6, (nilptrTree as TreeJSON).root!.children[1]);
  assert.equal(m.failed, true);
  assert.equal(m.outcome, 'panicked: runtime error: invalid memory address or nil pointer dereference');
  const last = m.rows[m.rows.length - 1];
  assert.ok(last.kind === 'step');
  assert.equal(last.callees[0].label, 'nilptr.Greeting#3');
  assert.equal(last.callees[0].failed, true);
  const first = m.rows[2];
  assert.ok(first.kind === 'step');
  assert.equal(first.callees[0].outcome, '→ "hello, ada"');
  assert.equal(first.callees[0].failed, false);
});

test('views: the frame HTML has the stable hooks and escapes every value', () => {
  const evil: FLTJSON = {
    ...sumFirst,
    fid: 'main.f<script>#1',
    args: [{ name: 's', type: 'string', value: '"</code><img src=x onerror=alert(1)>"' }],
    steps: [
      { file: '/tmp/a "b".go', line: 3, stmt: 'x := "<b>&</b>"', changes: [{ var: 'x', old: "'<i>'", new: '<script>alert(1)</script>' }], callees: ['main.g"><svg onload=alert(1)>#1'] },
      { file: '/tmp/a.go', line: 4, stmt: 'return', changes: [], callees: [] },
    ],
    skipped: [],
  };
  const html = frameHtml(frameModel(evil, 0));
  assert.doesNotMatch(html, /<script|<img|<svg|<b>|<i>/);
  assert.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
  assert.match(html, /data-fid="main\.g&quot;&gt;&lt;svg onload=alert\(1\)&gt;#1"/);
  assert.match(html, /data-file="\/tmp\/a &quot;b&quot;\.go"/);
  assert.match(html, /^<div id="frame-view"/);
  assert.equal((html.match(/class="step current"/g) ?? []).length, 1);
  assert.equal((html.match(/class="step"/g) ?? []).length, 1);
  assert.equal((html.match(/class="change"/g) ?? []).length, 1);
  assert.equal((html.match(/class="callee"/g) ?? []).length, 1);
  // The real trace: the skipped iterations are one row.
  const real = frameHtml(frameModel(sumFirst, 0));
  assert.match(real, /<li class="skip">.*22 iterations of line 21 skipped \(44 statements\)/);
  assert.equal(escapeHtml(`<a href="x" title='y'>&\``), '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&#96;');
  assert.equal(escapeHtml(undefined), '');
});

test('views: the webview document has a strict CSP with a nonce and no remote resources', () => {
  const nonce = makeNonce();
  assert.match(nonce, /^[A-Za-z0-9]{32}$/);
  assert.notEqual(nonce, makeNonce());
  const doc = webviewDocument({ nonce, cspSource: 'vscode-webview://abc', title: 't<', style: 'body{}', body: '<p>x</p>', script: 'let a=1;' });
  const csp = /http-equiv="Content-Security-Policy" content="([^"]*)"/.exec(doc)?.[1] ?? '';
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, new RegExp(`script-src 'nonce-${nonce}'`));
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https?:/);
  assert.match(doc, new RegExp(`<script nonce="${nonce}">let a=1;</script>`));
  assert.match(doc, new RegExp(`<style nonce="${nonce}">`));
  assert.doesNotMatch(doc, /src="https?:|href="https?:/);
  assert.match(doc, /<title>t&lt;<\/title>/);
});

test('views: pickStep places the stop on a line that runs many times', () => {
  // Line 21 (the loop header) is steps 1, 3 and 5; line 22 is steps 2 and 4.
  assert.equal(pickStep(sumFirst, 20), 0);
  assert.equal(pickStep(sumFirst, 21), 1, 'a frame just entered: the first visit');
  assert.equal(pickStep(sumFirst, 21, undefined, 'exception'), 5, 'at a panic: the last visit');
  const fid = sumFirst.fid;
  assert.equal(pickStep(sumFirst, 22, { fid, step: 3 }), 4, 'next from step 3');
  assert.equal(pickStep(sumFirst, 22, { fid, step: 5 }), 4, 'step back from step 5');
  assert.equal(pickStep(sumFirst, 21, { fid, step: 4 }), 5, 'next from step 4: 3 and 5 are both one away, forward wins');
  assert.equal(pickStep(sumFirst, 21, { fid, step: 2 }), 3);
  assert.equal(pickStep(sumFirst, 21, { fid, step: 0 }), 1, 'next from step 0');
  assert.equal(pickStep(sumFirst, 20, { fid, step: 1 }), 0, 'step back to the only visit');
  assert.equal(pickStep(sumFirst, 99), -1);
  // Back in the caller after step out: the statement that called SumFirst.
  const test = offbyoneTestFLT as FLTJSON;
  assert.equal(pickStep(test, 14, { fid: sumFirst.fid, step: 6 }), 1);
});

test('views: pickStep takes the step the adapter reports (current_step) over a guess', () => {
  // The e2e case: step back lands on the first visit of line 21 although a
  // guess from the previous step would pick a later visit.
  const fid = sumFirst.fid;
  const at1 = { ...sumFirst, current_step: 1 } as FLTJSON;
  assert.equal(pickStep(at1, 21, { fid, step: 4 }), 1);
  assert.equal(pickStep(at1, 21, undefined, 'exception'), 1);
  // A current_step that does not fit the line (another adapter, a stale
  // answer) is ignored and the guess is used.
  const stale = { ...sumFirst, current_step: 2 } as FLTJSON;
  assert.equal(pickStep(stale, 21, { fid, step: 4 }), 5);
  const out = { ...sumFirst, current_step: 99 } as FLTJSON;
  assert.equal(pickStep(out, 21), 1);
});

test('views: names', () => {
  assert.equal(shortName(pkg + 'offbyone.SumFirst#1'), 'offbyone.SumFirst#1');
  assert.equal(shortName(pkg + 'generics.(*Stack[...]).Pop#2'), 'generics.(*Stack[...]).Pop#2');
  assert.equal(shortName('main.fib#3'), 'main.fib#3');
  assert.equal(shortName('example.com/m/p.Map[example.com/m/q.T]#1'), 'p.Map[example.com/m/q.T]#1');
  assert.equal(fidOfFrameName('main.fib#3(n=2)'), 'main.fib#3');
  assert.equal(fidOfFrameName(pkg + 'nilptr.(*Directory).Find#3(d=&nilptr.Directory{…}, id=4)'), pkg + 'nilptr.(*Directory).Find#3');
  assert.equal(fidOfFrameName('main.work#1() (ran the go statement)'), 'main.work#1');
  assert.equal(fidOfFrameName('main.f#12'), 'main.f#12');
  assert.equal(fidOfFrameName('not a frame'), undefined);
  // The Call Stack of adi dap (adapter/inspection.go: fid(args), the line
  // of the statement in the top frame, of the call in the callers).
  assert.deepEqual(stackEntries([
    { id: 14, name: 'offbyone.Reading#4(i=3)', line: 6, source: { path: '/w/offbyone.go' } },
    { id: 2, name: 'offbyone.Readings#1(n=30)', line: 13, source: { path: '/w/offbyone.go' } },
    { id: 1, name: 'offbyone.TestSumFirst#1(t=&testing.T{…})', line: 13 },
  ]), [
    { id: 14, fid: 'offbyone.Reading#4', line: 6, file: '/w/offbyone.go' },
    { id: 2, fid: 'offbyone.Readings#1', line: 13, file: '/w/offbyone.go' },
    { id: 1, fid: 'offbyone.TestSumFirst#1', line: 13, file: '' },
  ]);
  assert.deepEqual(stackEntries(undefined), []);
  assert.equal(testName(pkg + 'offbyone.TestSumFirst#1'), 'TestSumFirst');
  assert.equal(testName(pkg + 'offbyone.SumFirst#1'), undefined);
  assert.equal(outcomeText({ exit: 'returned', panic: null, results: [{ name: 'a', type: 'int', value: '1' }, { name: '~r1', type: 'error', value: 'nil' }] }), '→ (a=1, nil)');
  assert.equal(outcomeText({ exit: 'goexit', panic: null, results: [] }), 'goexit (t.FailNow / t.Fatal)');
  assert.equal(isTruncatedAnswer({ truncated: true, text: 'x', note: 'n' }), true);
  assert.equal(isTruncatedAnswer(sumFirst), false);
});

test('views: the call tree marks the failing path of a panic, not the frames that returned', () => {
  const f = failuresOf(nilptrOutcome as OutcomeJSON);
  assert.equal(f.panicFrame, pkg + 'nilptr.Greeting#3');
  assert.ok(f.tests.has('TestGreetings'));
  const root = fromJSON((nilptrTree as TreeJSON).root!, f);
  const status = (fid: string) => find(root, pkg + fid)?.status;
  assert.equal(status('nilptr.TestGreetings#1'), 'failed');
  assert.equal(status('nilptr.Greetings#1'), 'failed');
  assert.equal(status('nilptr.Greeting#3'), 'failed');
  assert.equal(status('nilptr.Greeting#1'), 'ok');
  assert.equal(status('nilptr.NewDirectory#1'), 'ok');
  assert.equal(status('nilptr.(*Directory).Find#3'), 'ok');
  assert.deepEqual(iconOf(find(root, pkg + 'nilptr.Greeting#3')!), { id: 'error', color: 'testing.iconFailed' });
  assert.equal(iconOf(find(root, pkg + 'nilptr.Greeting#1')!).id, 'symbol-function');
  const g3 = find(root, pkg + 'nilptr.Greeting#3')!;
  assert.match(describe(g3), /^\(d=&nilptr\.Directory\{.*\}, id=4\) panicked: runtime error/);
  assert.equal(setCurrent(root, g3.fid), g3);
  assert.match(describe(g3), /◀ inspected$/);
  assert.equal(find(root, pkg + 'nilptr.Greeting#1')!.current, false);
});

test('views: a failure below a returned frame marks its ancestors as the failing path', () => {
  const node = (fid: string, exit: string, children: NodeJSON[] = [], extra: Partial<NodeJSON> = {}): NodeJSON =>
    ({ fid, args: [], results: [], panic: exit === 'panicked' ? 'boom' : null, exit, children, goroutine: 1, ...extra });
  const tree = node('main.main#1', 'returned', [
    node('main.a#1', 'returned', [node('main.b#1', 'returned', [node('main.c#1', 'panicked')])]),
    node('main.d#1', 'returned'),
  ]);
  const root = fromJSON(tree, noFailures);
  assert.deepEqual(['main.main#1', 'main.a#1', 'main.b#1', 'main.c#1', 'main.d#1'].map((f) => find(root, f)!.status),
    ['path', 'path', 'path', 'failed', 'ok']);
  assert.equal(iconOf(find(root, 'main.a#1')!).color, 'testing.iconFailed');

  // A failing frame found when a cut node is expanded marks the path too.
  const cut = fromJSON(node('main.main#1', 'returned', [node('main.a#1', 'returned', [], { more: 2 })]), noFailures);
  const a = find(cut, 'main.a#1')!;
  assert.equal(a.children, undefined);
  assert.equal(isExpandable(a), true);
  assert.equal(cut.status, 'ok');
  loadChildren(a, node('main.a#1', 'returned', [node('main.x#1', 'returned'), node('main.y#1', 'goexit')]), noFailures);
  assert.deepEqual(a.children!.map((c) => c.fid), ['main.x#1', 'main.y#1']);
  assert.equal(a.children![1].parent, a);
  assert.equal(a.status, 'path');
  assert.equal(cut.status, 'path');
});

test('views: long lists of callees show a "more" item where the callees were left out', () => {
  const kids = Array.from({ length: 30 }, (_, i) => ({ fid: `main.f#${i < 25 ? i + 1 : i + 71}`, args: [], results: [], panic: null, exit: 'returned', children: [], goroutine: 1 }));
  const root = fromJSON({ fid: 'main.main#1', args: [], results: [], panic: null, exit: 'returned', children: kids, more: 70, more_after: 25, goroutine: 1 }, noFailures);
  const items = childItems(root);
  assert.equal(items.length, 31);
  assert.equal(items[25].kind, 'more');
  assert.equal(items[25].kind === 'more' && items[25].count, 70);
  assert.equal(items[24].kind === 'frame' && items[24].node.fid, 'main.f#25');
  assert.equal(items[26].kind === 'frame' && items[26].node.fid, 'main.f#96');
  // The inspected frame among the left-out ones is put in their place.
  const f50: TreeNode = fromJSON({ fid: 'main.f#50', args: [], results: [], panic: 'x', exit: 'panicked', children: [], goroutine: 1 }, noFailures);
  insertChild(root, f50);
  const after = childItems(root);
  assert.equal(after.length, 32);
  assert.equal(after[25].kind === 'frame' && after[25].node.fid, 'main.f#50');
  assert.equal(after[26].kind === 'more' && after[26].count, 69);
  assert.equal(f50.parent, root);
  assert.equal(root.status, 'path');
});

/** A synthetic recording: main calls work n times; each work calls leaf twice; work#k panics. */
function bigTree(n: number, failing: number): NodeJSON {
  const leaf = (i: number): NodeJSON => ({ fid: `main.leaf#${i}`, args: [{ name: 'i', type: 'int', value: String(i) }], results: [], panic: null, exit: 'returned', children: [], goroutine: 1 });
  const work = Array.from({ length: n }, (_, k): NodeJSON => ({
    fid: `main.work#${k + 1}`, args: [{ name: 'k', type: 'int', value: String(k + 1) }], results: [],
    panic: k + 1 === failing ? 'boom' : null, exit: k + 1 === failing ? 'panicked' : 'returned',
    children: [leaf(2 * k + 1), leaf(2 * k + 2)], goroutine: 1,
  }));
  return { fid: 'main.main#1', args: [], results: [], panic: null, exit: 'returned', children: work, goroutine: 1 };
}

test('views: the timeline flattens the tree in entry order with the left-out callees counted', () => {
  const d = flatten({
    fid: 'main.main#1', args: [], results: [], panic: null, exit: 'returned', goroutine: 1, more: 3, more_after: 1,
    children: [
      { fid: 'main.a#1', args: [], results: [], panic: null, exit: 'returned', goroutine: 1, children: [], more: 4 },
      { fid: 'main.b#1', args: [], results: [], panic: 'p', exit: 'panicked', goroutine: 1, children: [] },
    ],
  }, noFailures);
  const at = Object.fromEntries(d.frames.map((f) => [f.fid, [f.x, f.size, f.depth, f.status]]));
  // main (1) + a (1 + 4 hidden callees) + 3 hidden callees of main + b (1).
  assert.equal(d.total, 10);
  assert.deepEqual(at['main.main#1'], [0, 10, 0, 'path']);
  assert.deepEqual(at['main.a#1'], [1, 5, 1, 'ok']);
  assert.deepEqual(at['main.b#1'], [9, 1, 1, 'failed']);
  assert.equal(d.maxDepth, 1);
  // A frame left out of the chart is marked by its nearest caller on it.
  assert.equal(onChart(d, ['main.b#1', 'main.main#1']), 'main.b#1');
  assert.equal(onChart(d, ['main.x#9', 'main.a#1', 'main.main#1']), 'main.a#1');
  assert.equal(onChart(d, ['main.x#9']), undefined);
  assert.equal(onChart(d, []), undefined);
});

test('views: the timeline stays small for 20,000 frames and marks the failure and the inspected frame', () => {
  const d = flatten(bigTree(10000, 7777), noFailures);
  assert.equal(d.failure, 'main.work#7777');
  assert.equal(d.frames.length, 30001);
  assert.equal(d.total, 30001);
  const l = layout(d, { width: 600, current: 'main.leaf#3' });
  // Per row at most one cell per 3-pixel column, plus the wide main frame.
  assert.ok(l.cells.length <= 3 * (600 / 3 + 2), `${l.cells.length} cells`);
  const counted = l.cells.reduce((s, c) => s + c.count, 0);
  assert.equal(counted, 30001, 'every frame is in a cell');
  const failed = l.cells.filter((c) => c.status === 'failed');
  assert.equal(failed.length, 1);
  assert.equal(failed[0].fid, 'main.work#7777');
  assert.equal(failed[0].depth, 1);
  assert.ok(Math.abs(failed[0].x - (1 + 7776 * 3) * (600 / 30001)) < 3, `the failure at x=${failed[0].x}`);
  assert.equal(l.cells.filter((c) => c.current).length, 1);
  assert.equal(l.cells.find((c) => c.current)!.fid, 'main.leaf#3');
  assert.ok(l.failureX !== undefined && l.currentX !== undefined && l.currentX < l.failureX);
  assert.equal(l.height, 3 * 16);
  const main = l.cells.find((c) => c.fid === 'main.main#1')!;
  assert.equal(main.status, 'path');
  assert.ok(Math.abs(main.w - 600) < 0.01);
  const svg = timelineSvg(l);
  assert.match(svg, /^<svg [^>]*width="600"/);
  assert.match(svg, /class="cell failed merged" data-fid="main\.work#7777"/);
  assert.match(svg, /class="failure-mark"/);
  assert.match(svg, /class="current-mark"/);
  assert.ok(svg.length < 300_000, `${svg.length} bytes of SVG`);
});

test('views: the timeline of a small run labels its frames and escapes them', () => {
  const root = fromJSON((nilptrTree as TreeJSON).root!, noFailures);
  assert.equal(root.fid, pkg + 'nilptr.TestGreetings#1');
  const d = flatten((nilptrTree as TreeJSON).root!, failuresOf(nilptrOutcome as OutcomeJSON));
  assert.equal(d.total, 9);
  // The failed test, the frames the panic unwound and the one that panicked
  // all failed: the mark goes to the last.
  assert.deepEqual(d.frames.filter((f) => f.status === 'failed').map((f) => shortName(f.fid)),
    ['nilptr.TestGreetings#1', 'nilptr.Greetings#1', 'nilptr.Greeting#3']);
  assert.equal(d.failure, pkg + 'nilptr.Greeting#3');
  // Without the outcome's panic frame, the deepest failed frame.
  assert.equal(flatten((nilptrTree as TreeJSON).root!, noFailures).failure, pkg + 'nilptr.Greeting#3');
  const l = layout(d, { width: 900, current: pkg + 'nilptr.Greeting#3' });
  assert.equal(l.cells.length, 9, 'each frame is wide enough for a cell of its own');
  assert.ok(l.cells.every((c) => c.count === 1));
  const svg = timelineSvg(l);
  assert.match(svg, /<text [^>]*>nilptr\.TestGreetings#1<\/text>/);
  assert.match(svg, /class="cell failed current" data-fid="github\.com\/adi-go\/adi\/testdata\/nilptr\.Greeting#3"/);
  const evil = timelineSvg(layout(flatten({ fid: 'main.<b>"#1', args: [{ name: 's', type: 'string', value: '</title><script>' }], results: [], panic: null, exit: 'returned', children: [], goroutine: 1 }, noFailures), { width: 400 }));
  assert.doesNotMatch(evil, /<b>|<script>|<\/title><script/);
  assert.match(evil, /main\.&lt;b&gt;&quot;#1/);
});
