// Moving through a recording of testdata/fib with the editor's stepping
// requests: continue / reverseContinue between breakpoint matches, next /
// stepBack within a frame, stepIn / stepOut between frames.
//
// `go run ./testdata/fib 6` makes 25 calls of main.fib, numbered in call
// order: fib#1(n=6) calls fib#2(n=5) and fib#17(n=4), and so on. The five
// calls with n == 2 are fib#5, #9, #13, #19 and #23.
'use strict';

const assert = require('node:assert/strict');
const adi = require('./support/adi');

const MAIN_GO = adi.testdata('fib', 'main.go');
const FIB = { mode: 'run', program: adi.testdata('fib'), args: ['6'], stopOnEntry: false };
const N2 = ['main.fib#5', 'main.fib#9', 'main.fib#13', 'main.fib#19', 'main.fib#23'];

// Lines of testdata/fib/main.go.
const IF_LINE = 13; // if n < 2 {
const BASE_LINE = 14; // return n
const REC_LINE = 16; // return fib(n-1) + fib(n-2)

describe('adi dap: navigating testdata/fib 6', function () {
  let dc;
  beforeEach(async function () {
    dc = await adi.client();
  });
  afterEach(async function () {
    await adi.stop(dc);
    dc = undefined;
  });

  it('continue and reverseContinue move between the matches of a conditional function breakpoint', async function () {
    const { fbps, stopped } = await adi.start(dc, FIB, {
      functionBreakpoints: [{ name: 'main.fib', condition: 'n == 2' }, { name: 'main.noSuchFunc' }],
    });

    // Verified, with the number of matching frames; an unknown function is not.
    const [fib, nope] = fbps.body.breakpoints;
    assert.equal(fib.verified, true);
    assert.match(fib.message, /^5 matching frames$/);
    assert.equal(nope.verified, false);
    assert.match(nope.message, /main\.noSuchFunc/);

    // stopOnEntry false: the session starts at the first match.
    assert.equal(stopped.body.reason, 'function breakpoint');
    let frames = await adi.frames(dc, stopped.body.threadId);
    assert.equal(adi.fid(frames[0]), N2[0]);
    assert.equal(frames[0].name, 'main.fib#5(n=2)');
    assert.equal(frames[0].line, IF_LINE);
    dc.assertPath(frames[0].source.path, MAIN_GO);
    // fib#5 ← fib#4(n=3) ← fib#3(n=4) ← fib#2(n=5) ← fib#1(n=6) ← main.main#1, each caller at its call's line.
    assert.deepEqual(frames.map(adi.fid), ['main.fib#5', 'main.fib#4', 'main.fib#3', 'main.fib#2', 'main.fib#1', 'main.main#1']);
    assert.deepEqual(frames.slice(1, 5).map((f) => f.line), [REC_LINE, REC_LINE, REC_LINE, REC_LINE]);

    // Forward through every match.
    for (const want of N2.slice(1)) {
      const s = await adi.step(dc, () => dc.continueRequest({ threadId: 1 }));
      assert.equal(s.stopped.body.reason, 'function breakpoint');
      assert.equal(adi.fid(s.top), want);
      assert.equal(s.top.name, `${want}(n=2)`);
      assert.equal(s.top.line, IF_LINE);
    }

    // Past the last match: a stop that says so, not a hang, and the frame is unchanged.
    let s = await adi.step(dc, () => dc.continueRequest({ threadId: 1 }));
    assert.equal(s.stopped.body.reason, 'step');
    assert.match(s.stopped.body.description, /no later frame matches/);
    assert.equal(adi.fid(s.top), N2[4]);

    // Backward through every match.
    for (const want of N2.slice(0, 4).reverse()) {
      s = await adi.step(dc, () => dc.reverseContinueRequest({ threadId: 1 }));
      assert.equal(s.stopped.body.reason, 'function breakpoint');
      assert.equal(adi.fid(s.top), want);
    }
    s = await adi.step(dc, () => dc.reverseContinueRequest({ threadId: 1 }));
    assert.equal(s.stopped.body.reason, 'step');
    assert.match(s.stopped.body.description, /no earlier frame matches/);
    assert.equal(adi.fid(s.top), N2[0]);

    // Clearing the breakpoints: continue has nothing to go to.
    const cleared = await dc.setFunctionBreakpointsRequest({ breakpoints: [] });
    assert.deepEqual(cleared.body.breakpoints, []);
    s = await adi.step(dc, () => dc.continueRequest({ threadId: 1 }));
    assert.equal(s.stopped.body.reason, 'step');
    assert.equal(adi.fid(s.top), N2[0]);

    await adi.exitsAfterDisconnect(dc);
  });

  it('next and stepBack move through the statements of one frame', async function () {
    await adi.start(dc, FIB, { functionBreakpoints: [{ name: 'main.fib', condition: 'n == 2' }] });
    let frames = await adi.frames(dc);
    assert.equal(adi.fid(frames[0]), 'main.fib#5');
    assert.equal(frames[0].line, IF_LINE);

    // fib(2) runs `if n < 2 {` then `return fib(n-1) + fib(n-2)`.
    let s = await adi.step(dc, () => dc.nextRequest({ threadId: 1 }));
    assert.equal(s.stopped.body.reason, 'step');
    assert.equal(adi.fid(s.top), 'main.fib#5');
    assert.equal(s.top.line, REC_LINE);
    assert.equal(s.frames.length, frames.length, 'next stays in the frame');

    // Past the last statement: the stop says how the frame ended.
    s = await adi.step(dc, () => dc.nextRequest({ threadId: 1 }));
    assert.equal(s.stopped.body.reason, 'step');
    assert.equal(s.stopped.body.description, 'end of main.fib#5: returned 1');
    assert.equal(s.top.line, REC_LINE);

    s = await adi.step(dc, () => dc.stepBackRequest({ threadId: 1 }));
    assert.equal(s.stopped.body.reason, 'step');
    assert.equal(adi.fid(s.top), 'main.fib#5');
    assert.equal(s.top.line, IF_LINE);

    // Before the first statement: the stop says so.
    s = await adi.step(dc, () => dc.stepBackRequest({ threadId: 1 }));
    assert.equal(s.stopped.body.reason, 'step');
    assert.equal(s.stopped.body.description, 'start of main.fib#5');
    assert.equal(s.top.line, IF_LINE);

    // The scopes follow the statement: the Return scope has fib(2)'s result.
    const scopes = await adi.scopes(dc, s.top.id);
    const args = await adi.variables(dc, scopes.get('Arguments').variablesReference);
    assert.equal(args.get('n').value, '2');
    const ret = await adi.variables(dc, scopes.get('Return').variablesReference);
    assert.deepEqual([...ret.values()].map((v) => v.value), ['1']);
  });

  it('stepIn enters the callee of the statement and stepOut returns to the caller', async function () {
    await adi.start(dc, FIB, { functionBreakpoints: [{ name: 'main.fib', condition: 'n == 2' }] });
    let s = await adi.step(dc, () => dc.nextRequest({ threadId: 1 }));
    assert.equal(s.top.line, REC_LINE);
    const depth = s.frames.length;

    // fib#5(n=2) at `return fib(n-1) + fib(n-2)`: into fib#6(n=1), its first callee.
    s = await adi.step(dc, () => dc.stepInRequest({ threadId: 1 }));
    assert.equal(s.stopped.body.reason, 'step');
    assert.equal(s.top.name, 'main.fib#6(n=1)');
    assert.equal(s.top.line, IF_LINE);
    assert.equal(s.frames.length, depth + 1);
    assert.equal(adi.fid(s.frames[1]), 'main.fib#5');
    assert.equal(s.frames[1].line, REC_LINE, 'the caller is shown at the call');

    // `if n < 2 {` calls nothing: stepIn goes to the next statement.
    s = await adi.step(dc, () => dc.stepInRequest({ threadId: 1 }));
    assert.equal(adi.fid(s.top), 'main.fib#6');
    assert.equal(s.top.line, BASE_LINE);

    // Out to the caller, at the statement that made the call.
    s = await adi.step(dc, () => dc.stepOutRequest({ threadId: 1 }));
    assert.equal(s.stopped.body.reason, 'step');
    assert.equal(adi.fid(s.top), 'main.fib#5');
    assert.equal(s.top.line, REC_LINE);
    assert.equal(s.frames.length, depth);

    // And out again: fib#4(n=3) called fib#5 at line 16.
    s = await adi.step(dc, () => dc.stepOutRequest({ threadId: 1 }));
    assert.equal(s.top.name, 'main.fib#4(n=3)');
    assert.equal(s.top.line, REC_LINE);
    assert.equal(s.frames.length, depth - 1);

    // stepBack after stepOut stays in fib#4 and goes to its first statement.
    s = await adi.step(dc, () => dc.stepBackRequest({ threadId: 1 }));
    assert.equal(adi.fid(s.top), 'main.fib#4');
    assert.equal(s.top.line, IF_LINE);
  });

  it('a line breakpoint stops at its line in the matching frames', async function () {
    const { lbps, stopped } = await adi.start(dc, FIB, {
      lineBreakpoints: {
        source: { path: MAIN_GO },
        breakpoints: [{ line: REC_LINE, condition: 'n == 3' }, { line: 2 }],
      },
    });
    const [rec, outside] = lbps.body.breakpoints;
    assert.equal(rec.verified, true);
    assert.equal(rec.line, REC_LINE);
    assert.match(rec.message, /main\.fib: 3 matching frames/);
    assert.equal(outside.verified, false);

    assert.equal(stopped.body.reason, 'breakpoint');
    let frames = await adi.frames(dc);
    assert.equal(frames[0].name, 'main.fib#4(n=3)');
    assert.equal(frames[0].line, REC_LINE);

    const s = await adi.step(dc, () => dc.continueRequest({ threadId: 1 }));
    assert.equal(s.stopped.body.reason, 'breakpoint');
    assert.equal(s.top.name, 'main.fib#12(n=3)');
    assert.equal(s.top.line, REC_LINE);
  });
});
