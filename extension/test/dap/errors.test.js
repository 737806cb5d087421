// Failures a client must see as error responses, never as a hang or a
// dropped connection: a program that does not build, bad launch arguments,
// requests before launch and after terminate.
'use strict';

const assert = require('node:assert/strict');
const adi = require('./support/adi');

describe('adi dap: errors', function () {
  let dc;
  beforeEach(async function () {
    dc = await adi.client();
  });
  afterEach(async function () {
    await adi.stop(dc);
    dc = undefined;
  });

  it('a launch of a program that does not build fails with the compiler errors', async function () {
    await dc.initializeRequest();
    const launch = { mode: 'test', program: adi.testdata('broken') };

    const r = await adi.failing(dc, 'launch', launch);
    assert.equal(r.message, 'launch failed');
    assert.equal(r.body.error.showUser, true);
    const text = r.body.error.format;
    assert.match(text, /build failed/);
    assert.match(text, /broken\.go:9:30: undefined: suffix/);
    assert.match(text, /broken\.go:15:6: cannot use "len" \(untyped string constant\) as int value in assignment/);

    // Through DebugClient's own API it is a rejected promise.
    await assert.rejects(dc.launchRequest(launch), /launch failed/);

    // No session started: the adapter still answers.
    const threads = await dc.threadsRequest();
    assert.deepEqual(threads.body.threads, []);
    await adi.exitsAfterDisconnect(dc);
  });

  it('bad launch arguments are error responses that say what is wrong', async function () {
    await dc.initializeRequest();
    let r = await adi.failing(dc, 'launch', { mode: 'debug', program: adi.testdata('fib') });
    assert.match(r.body.error.format, /unknown mode "debug"/);

    r = await adi.failing(dc, 'launch', { mode: 'run' });
    assert.match(r.body.error.format, /"program"/);

    r = await adi.failing(dc, 'launch', { mode: 'exec', program: adi.testdata('fib'), buildFlags: ['-race'] });
    assert.match(r.body.error.format, /buildFlags/);

    r = await adi.failing(dc, 'launch', { mode: 'run', program: adi.testdata('fib'), args: 'not a list' });
    assert.match(r.body.error.format, /launch arguments are not valid/);

    r = await adi.failing(dc, 'attach', {});
    assert.match(r.body.error.format, /use launch/);
  });

  it('requests before launch and after terminate are error responses', async function () {
    await dc.initializeRequest();
    let r = await adi.failing(dc, 'stackTrace', { threadId: 1 });
    assert.match(r.body.error.format, /send launch first/);
    r = await adi.failing(dc, 'adi/frame', {});
    assert.match(r.body.error.format, /send launch first/);

    const { stopped } = await adi.start(dc, { mode: 'run', program: adi.testdata('fib'), args: ['3'] }, { initialize: false });
    assert.equal(stopped.body.reason, 'entry');

    const [terminated, done] = await adi.withEvent(dc, 'terminated', () => dc.terminateRequest({}));
    assert.equal(done.success, true);
    assert.equal(terminated.event, 'terminated');

    r = await adi.failing(dc, 'stackTrace', { threadId: 1 });
    assert.match(r.body.error.format, /session has ended/);
    r = await adi.failing(dc, 'next', { threadId: 1 });
    assert.match(r.body.error.format, /session has ended/);
    await adi.exitsAfterDisconnect(dc);
  });
});
