// The ADI commands as custom requests (adi/frame, adi/frames, adi/callTree,
// adi/break, adi/clear, adi/continue, adi/prev, adi/stepInto, adi/stepOut,
// adi/execute, adi/outcome): the response body is the engine's JSON answer
// plus the compact text in "text"; a navigation also sends stopped, so the
// editor's views follow.
'use strict';

const assert = require('node:assert/strict');
const adi = require('./support/adi');

const MAIN_GO = adi.testdata('fib', 'main.go');
const FIB = { mode: 'run', program: adi.testdata('fib'), args: ['6'], stopOnEntry: false };

describe('adi dap: custom requests on testdata/fib 6', function () {
  let dc;
  beforeEach(async function () {
    dc = await adi.client();
    await adi.start(dc, FIB, { functionBreakpoints: [{ name: 'main.fib', condition: 'n == 2' }] });
  });
  afterEach(async function () {
    await adi.stop(dc);
    dc = undefined;
  });

  it('adi/frame, adi/frames and adi/callTree answer with the engine JSON and its text', async function () {
    // The inspected frame (the first breakpoint match) by default.
    let r = await dc.customRequest('adi/frame', {});
    let b = r.body;
    assert.equal(b.fid, 'main.fib#5');
    assert.equal(b.func, 'main.fib');
    assert.equal(b.caller, 'main.fib#4');
    assert.equal(b.exit, 'returned');
    assert.deepEqual(b.args.map((a) => [a.name, a.value]), [['n', '2']]);
    assert.deepEqual(b.results.map((v) => v.value), ['1']);
    assert.deepEqual(b.steps.map((s) => s.line), [13, 16]);
    assert.equal(b.steps[1].stmt, 'return fib(n-1) + fib(n-2)');
    assert.deepEqual(b.steps[1].callees, ['main.fib#6', 'main.fib#7']);
    assert.equal(b.decl.file, MAIN_GO);
    assert.equal(b.decl.line, 12);
    assert.match(b.text, /^main\.fib#5\(n=2\) → 1 · caller main\.fib#4 at main\.go:16/);

    // Any frame by fid.
    r = await dc.customRequest('adi/frame', { fid: 'main.fib#1' });
    assert.equal(r.body.fid, 'main.fib#1');
    assert.equal(r.body.caller, 'main.main#1');
    assert.deepEqual(r.body.results.map((v) => v.value), ['8']);
    assert.deepEqual(r.body.steps[1].callees, ['main.fib#2', 'main.fib#17']);

    // Every invocation of a function.
    r = await dc.customRequest('adi/frames', { func: 'main.fib' });
    assert.equal(r.body.func, 'main.fib');
    assert.equal(r.body.frames.length, 25);
    assert.equal(r.body.frames[0].fid, 'main.fib#1');
    assert.equal(r.body.frames.filter((f) => f.args[0].value === '2').length, 5);
    assert.match(r.body.text, /^main\.fib: 25 invocations/);

    // The call tree under a frame, to a depth.
    r = await dc.customRequest('adi/callTree', { fid: 'main.fib#1', depth: 1 });
    b = r.body;
    assert.equal(b.root.fid, 'main.fib#1');
    assert.deepEqual(b.root.results.map((v) => v.value), ['8']);
    assert.deepEqual(b.root.children.map((c) => c.fid), ['main.fib#2', 'main.fib#17']);
    assert.deepEqual(b.root.children.map((c) => c.more), [2, 2]);
    assert.equal(b.text.split('\n')[0], 'main.fib#1(n=6) → 8 · caller main.main#1 at main.go:39 · goroutine 1');
    assert.match(b.text, /\n {2}main\.fib#2\(n=5\) → 5\n/);

    // Custom requests that only read do not move the session.
    const frames = await adi.frames(dc);
    assert.equal(adi.fid(frames[0]), 'main.fib#5');
  });

  it('adi/execute evaluates in a re-execution, and answers a what-if', async function () {
    let r = await dc.customRequest('adi/execute', { fid: 'main.fib#1', line: 13, stmt: 'n * 10' });
    assert.equal(r.body.fid, 'main.fib#1');
    assert.equal(r.body.line, 13);
    assert.equal(r.body.k, 1);
    assert.equal(r.body.value, '60');
    assert.equal(r.body.what_if, false);
    assert.equal(r.body.text, 'n * 10 = 60  at line 13 (visit 1) of main.fib#1');

    // Assign, then let the frame run on: fib(10) = 55.
    r = await dc.customRequest('adi/execute', { fid: 'main.fib#1', line: 16, k: 1, stmt: 'n = 10' });
    assert.equal(r.body.what_if, true);
    assert.deepEqual(r.body.results.map((v) => v.value), ['55']);
    assert.match(r.body.text, /main\.fib#1 returns \(55\)/);

    r = await dc.customRequest('adi/outcome', {});
    assert.equal(r.body.exit_code, 0);
    assert.equal(r.body.panic, null);
    assert.equal(r.body.output, 'fib(6) = 8\n');
    assert.match(r.body.text, /^exit code 0\n/);
  });

  it('adi/break, adi/continue, adi/prev, adi/stepInto, adi/stepOut, adi/clear navigate and send stopped', async function () {
    let r = await dc.customRequest('adi/break', { func: 'main.fib', condition: 'n == 4' });
    assert.deepEqual(r.body.breakpoint, { func: 'main.fib', condition: 'n == 4' });
    assert.equal(r.body.matches, 2);
    assert.match(r.body.text, /2 matching frames/);

    // B is now {fib if n == 2, fib if n == 4}: from fib#5 the next match is fib#9.
    let s = await adi.step(dc, () => dc.customRequest('adi/continue', {}));
    assert.equal(s.stopped.body.reason, 'function breakpoint');
    assert.equal(adi.fid(s.top), 'main.fib#9');
    assert.equal(s.top.line, 13);
    // …then fib#13, fib#17 (n == 4).
    s = await adi.step(dc, () => dc.customRequest('adi/continue', {}));
    assert.equal(adi.fid(s.top), 'main.fib#13');
    s = await adi.step(dc, () => dc.customRequest('adi/continue', {}));
    assert.equal(s.top.name, 'main.fib#17(n=4)');

    s = await adi.step(dc, () => dc.customRequest('adi/prev', {}));
    assert.equal(adi.fid(s.top), 'main.fib#13');

    // Into any frame by fid; the stack follows.
    s = await adi.step(dc, () => dc.customRequest('adi/stepInto', { fid: 'main.fib#3' }));
    assert.equal(s.response.body.fid, 'main.fib#3');
    assert.equal(s.stopped.body.reason, 'step');
    assert.equal(s.top.name, 'main.fib#3(n=4)');
    assert.deepEqual(s.frames.map(adi.fid), ['main.fib#3', 'main.fib#2', 'main.fib#1', 'main.main#1']);

    // Out to the caller, at the call.
    s = await adi.step(dc, () => dc.customRequest('adi/stepOut', {}));
    assert.equal(adi.fid(s.top), 'main.fib#2');
    assert.equal(s.top.line, 16);

    r = await dc.customRequest('adi/clear', { func: 'main.fib', condition: 'n == 4' });
    assert.equal(r.body.cleared, 1);
    assert.deepEqual(r.body.breakpoints, [{ func: 'main.fib', condition: 'n == 2' }]);
  });

  it('answers an unknown or incomplete custom request with an error naming it', async function () {
    let r = await adi.failing(dc, 'adi/noSuchCommand', {});
    assert.match(r.body.error.format, /adi\/noSuchCommand/);

    r = await adi.failing(dc, 'adi/frames', {});
    assert.match(r.body.error.format, /adi\/frames needs "func"/);

    r = await adi.failing(dc, 'adi/frame', { fid: 'main.fib#999' });
    assert.match(r.body.error.format, /main\.fib#999/);

    // The session goes on.
    r = await dc.customRequest('adi/frame', {});
    assert.equal(r.body.fid, 'main.fib#5');
  });
});
