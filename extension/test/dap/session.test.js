// Full sessions on testdata/nilmap (a panic in main.(*Registry).Add, mode
// run) and testdata/nilptr (a panicking test, mode test):
// initialize → launch → configurationDone → stopped on the exception →
// threads, stackTrace, scopes, variables, evaluate, exceptionInfo →
// disconnect.
'use strict';

const assert = require('node:assert/strict');
const adi = require('./support/adi');

const MAIN_GO = adi.testdata('nilmap', 'main.go');

describe('adi dap: full sessions (testdata/nilmap, testdata/nilptr)', function () {
  let dc;
  beforeEach(async function () {
    dc = await adi.client();
  });
  afterEach(async function () {
    await adi.stop(dc);
    dc = undefined;
  });

  it('advertises its capabilities truthfully', async function () {
    const init = await dc.initializeRequest({
      adapterID: 'adi',
      linesStartAt1: true,
      columnsStartAt1: true,
      pathFormat: 'path',
      supportsProgressReporting: true,
    });
    const caps = init.body;
    for (const c of [
      'supportsConfigurationDoneRequest',
      'supportsFunctionBreakpoints',
      'supportsConditionalBreakpoints',
      'supportsStepBack',
      'supportsEvaluateForHovers',
      'supportsTerminateRequest',
      'supportsExceptionInfoRequest',
      'supportsProgressReporting', // echoed because the client said it has it
    ]) {
      assert.equal(caps[c], true, `${c} should be advertised`);
    }
    // Nothing it does not implement.
    for (const c of ['supportsSetVariable', 'supportsRestartRequest', 'supportsGotoTargetsRequest', 'supportsDataBreakpoints']) {
      assert.ok(!caps[c], `${c} is not implemented and must not be advertised`);
    }
  });

  it('stops at the panic with its stack, scopes and values', async function () {
    const progress = [];
    dc.on('progressStart', (e) => progress.push(['start', e.body]));
    dc.on('progressEnd', (e) => progress.push(['end', e.body]));

    const { launch, stopped } = await adi.start(
      dc,
      { mode: 'run', program: adi.testdata('nilmap'), stopOnEntry: false },
      {
        initialize: { adapterID: 'adi', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path', supportsProgressReporting: true },
      },
    );
    assert.equal(launch.success, true);

    // Recording reported progress, and the program's output came as output events.
    assert.deepEqual(progress.map(([k]) => k), ['start', 'end']);
    assert.equal(progress[1][1].progressId, progress[0][1].progressId);
    const stdout = dc.output.filter((o) => o.category === 'stdout').map((o) => o.output).join('');
    assert.match(stdout, /loading services/);
    const stderr = dc.output.filter((o) => o.category === 'stderr').map((o) => o.output).join('');
    assert.match(stderr, /panic: assignment to entry in nil map/);

    // The natural starting point: the panicking frame.
    assert.equal(stopped.body.reason, 'exception');
    assert.match(stopped.body.description, /assignment to entry in nil map/);

    const threads = (await dc.threadsRequest()).body.threads;
    assert.ok(threads.some((t) => t.id === stopped.body.threadId), `thread ${stopped.body.threadId} in ${JSON.stringify(threads)}`);
    assert.match(threads.find((t) => t.id === stopped.body.threadId).name, /^goroutine 1\b/);

    // The fid chain from the inspected frame to the root, with source lines:
    // the panic at main.go:24, called from load at :34, from main at :41.
    const trace = await dc.stackTraceRequest({ threadId: stopped.body.threadId });
    const frames = trace.body.stackFrames;
    assert.deepEqual(frames.map(adi.fid), ['main.(*Registry).Add#1', 'main.load#1', 'main.main#1']);
    assert.deepEqual(frames.map((f) => f.line), [24, 34, 41]);
    for (const f of frames) {
      dc.assertPath(f.source.path, MAIN_GO, `source of ${f.name}`);
    }
    assert.equal(trace.body.totalFrames, 3);
    assert.match(frames[0].name, /^main\.\(\*Registry\)\.Add#1\(r=&main\.Registry\{ports: nil, order: nil\}, name="api", port=8000\)$/);

    // Paging of the stack.
    const paged = await dc.stackTraceRequest({ threadId: stopped.body.threadId, startFrame: 1, levels: 1 });
    assert.deepEqual(paged.body.stackFrames.map(adi.fid), ['main.load#1']);

    // Scopes of the panicking frame at its last statement.
    const scopes = await adi.scopes(dc, frames[0].id);
    assert.deepEqual([...scopes.keys()], ['Arguments', 'Locals', 'Changes by this statement', 'Return']);

    const args = await adi.variables(dc, scopes.get('Arguments').variablesReference);
    assert.deepEqual([...args.keys()], ['r', 'name', 'port']);
    assert.equal(args.get('name').value, '"api"');
    assert.equal(args.get('port').value, '8000');
    assert.equal(args.get('r').type, '*main.Registry');
    assert.equal(args.get('r').value, '&main.Registry{ports: nil, order: nil}');

    // r → *r → ports: nil, the bug's symptom.
    const r = await adi.variables(dc, args.get('r').variablesReference);
    const star = r.get('*r');
    assert.ok(star, `children of r: ${[...r.keys()]}`);
    assert.ok(star.variablesReference > 0, '*r has fields');
    const fields = await adi.variables(dc, star.variablesReference);
    assert.equal(fields.get('ports').value, 'nil');
    assert.equal(fields.get('ports').type, 'map[string]int');

    // Locals before line 24: line 23 appended the name to r.order.
    const locals = await adi.variables(dc, scopes.get('Locals').variablesReference);
    assert.equal(locals.get('r').value, '&main.Registry{ports: nil, order: []string{"api"}}');

    const ret = await adi.variables(dc, scopes.get('Return').variablesReference);
    assert.equal(ret.get('panic').value, 'assignment to entry in nil map');

    // An outer frame's arguments.
    const loadScopes = await adi.scopes(dc, frames[1].id);
    const loadArgs = await adi.variables(dc, loadScopes.get('Arguments').variablesReference);
    assert.equal(loadArgs.get('base').value, '8000');
    const services = loadArgs.get('services');
    assert.equal(services.indexedVariables, 3);
    const second = await adi.variables(dc, services.variablesReference, { start: 1, count: 1 });
    assert.deepEqual([...second.entries()].map(([k, v]) => [k, v.value]), [['[1]', '"db"']]);

    // Evaluate over the recorded values (a hover and an expression).
    const hover = await dc.evaluateRequest({ expression: 'name', frameId: frames[0].id, context: 'hover' });
    assert.equal(hover.body.result, '"api"');
    const expr = await dc.evaluateRequest({ expression: 'port + 1', frameId: frames[0].id, context: 'watch' });
    assert.equal(expr.body.result, '8001');

    // The run's panic.
    const info = await dc.exceptionInfoRequest({ threadId: stopped.body.threadId });
    assert.equal(info.body.breakMode, 'unhandled');
    assert.equal(info.body.description, 'assignment to entry in nil map');
    assert.match(info.body.details.stackTrace, /main\.\(\*Registry\)\.Add#1 at .*main\.go:24/);

    // The source of a frame.
    const src = await dc.sourceRequest({ source: { path: MAIN_GO }, sourceReference: 0 });
    assert.match(src.body.content, /func \(r \*Registry\) Add\(name string, port int\)/);

    await adi.exitsAfterDisconnect(dc);
  });

  it('records a test package in mode test, with testRun, on its goroutine', async function () {
    const { stopped } = await adi.start(dc, {
      mode: 'test',
      program: adi.testdata('nilptr'),
      testRun: '^TestGreetings$',
      env: { ADI_DAP_TEST: '1' },
    });
    assert.equal(stopped.body.reason, 'exception');
    assert.match(stopped.body.description, /nil pointer dereference/);

    // The test runs on its own goroutine: that is the thread.
    const threads = (await dc.threadsRequest()).body.threads;
    assert.deepEqual(threads.map((t) => t.id), [stopped.body.threadId]);
    assert.notEqual(stopped.body.threadId, 1);

    const frames = await adi.frames(dc, stopped.body.threadId);
    const pkg = 'github.com/adi-go/adi/testdata/nilptr.';
    assert.deepEqual(frames.map(adi.fid), [pkg + 'Greeting#3', pkg + 'Greetings#1', pkg + 'TestGreetings#1']);
    assert.deepEqual(frames.map((f) => f.line), [40, 47, 10]);
    assert.deepEqual(frames.map((f) => f.source.name), ['nilptr.go', 'nilptr.go', 'nilptr_test.go']);

    // At the panic, u is the nil that Find returned for id 4.
    const scopes = await adi.scopes(dc, frames[0].id);
    const args = await adi.variables(dc, scopes.get('Arguments').variablesReference);
    assert.equal(args.get('id').value, '4');
    const locals = await adi.variables(dc, scopes.get('Locals').variablesReference);
    assert.equal(locals.get('u').value, 'nil');

    const outcome = await dc.customRequest('adi/outcome', {});
    assert.deepEqual(outcome.body.failed_tests, ['TestGreetings']);
  });

  // The Locals scope of an outer frame is built lazily, by the variables
  // request that opens it, after the scopes request has been answered.
  it('the Locals of an outer frame are where it made the call', async function () {
    await adi.start(dc, { mode: 'run', program: adi.testdata('fib'), args: ['6'] }, {
      functionBreakpoints: [{ name: 'main.fib', condition: 'n == 2' }],
    });
    const frames = await adi.frames(dc);
    assert.equal(adi.fid(frames[1]), 'main.fib#4');
    const scopes = await adi.scopes(dc, frames[1].id);
    assert.equal(scopes.get('Locals').expensive, true);
    const locals = await adi.variables(dc, scopes.get('Locals').variablesReference);
    assert.equal(locals.get('n').value, '3');
  });
});
