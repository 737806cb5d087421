// Helpers for the DAP suite: a DebugClient on the built `adi dap` binary
// and the few request sequences every test repeats.
//
// DebugClient (@vscode/debugadapter-testsupport) spawns
// `new DebugClient(runtime, executable, type)` as `runtime executable`, so
// DebugClient(<repo>/out/adi, 'dap', 'adi') runs `out/adi dap`: the adapter
// over stdio, as VS Code starts it.
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { DebugClient } = require('@vscode/debugadapter-testsupport');

const ROOT = path.resolve(__dirname, '..', '..', '..', '..');
const ADI = path.join(ROOT, 'out', 'adi');
const TESTDATA = path.join(ROOT, 'testdata');

// How long to wait for an event. A recording takes 0.3–2 s once the Go
// build cache is warm; with a cold cache the launch builds the fixture and
// the standard library with -N -l first, and `initialized` only comes after
// that. Under mocha's 180 s per test.
const EVENT_TIMEOUT = 150000;

/** testdata(name, ...rest) is the absolute path of a fixture (or a file in it). */
function testdata(...parts) {
  return path.join(TESTDATA, ...parts);
}

/**
 * client starts `out/adi dap` and returns its DebugClient. Set
 * ADI_DAP_STDERR=1 to see the adapter's log on the console.
 */
async function client() {
  if (!fs.existsSync(ADI)) {
    throw new Error(`${ADI} does not exist: run "npm run build:adi" (npm test does)`);
  }
  const dc = new DebugClient(ADI, 'dap', 'adi', { cwd: ROOT }, !!process.env.ADI_DAP_STDERR);
  dc.defaultTimeout = EVENT_TIMEOUT;
  // Collect every output event from the start: events are only delivered to
  // listeners present when they arrive.
  dc.output = [];
  dc.on('output', (e) => dc.output.push(e.body));
  await dc.start();
  // exited resolves with { code, signal } when the adapter process ends.
  dc.exited = new Promise((resolve) => {
    dc._adapterProcess.on('exit', (code, signal) => resolve({ code, signal }));
  });
  dc.hasExited = false;
  dc.exited.then(() => {
    dc.hasExited = true;
  });
  return dc;
}

/**
 * raw sends a request and resolves with the whole response, successful or
 * not. DebugClient's own request methods reject an error response with only
 * its short `message`; the details (e.g. the compiler's errors) are in
 * body.error.format.
 */
function raw(dc, command, args) {
  // doSend is ProtocolClient's (TypeScript-private) primitive: it calls back
  // with the response whatever its success.
  return new Promise((resolve) => dc.doSend(command, args, resolve));
}

/**
 * failing sends a request that must fail and returns its error response.
 */
async function failing(dc, command, args) {
  const r = await raw(dc, command, args);
  assert.equal(r.success, false, `${command} should fail, got ${JSON.stringify(r.body)}`);
  assert.equal(r.command, command);
  return r;
}

/**
 * withEvent sends a request with send() and resolves with [event, response]
 * where event is the next `name` event. The listener is in place before the
 * request goes out (events reach only the listeners present when they
 * arrive, and the adapter sends e.g. stopped right after the response), and
 * is removed, with its timer, if the request fails, so a failed test leaves
 * nothing behind for the next one.
 */
async function withEvent(dc, name, send) {
  let timer;
  let listener;
  const event = new Promise((resolve, reject) => {
    listener = (e) => {
      clearTimeout(timer);
      resolve(e);
    };
    dc.once(name, listener);
    timer = setTimeout(() => {
      dc.removeListener(name, listener);
      reject(new Error(`no '${name}' event received after ${EVENT_TIMEOUT} ms`));
    }, EVENT_TIMEOUT);
  });
  let response;
  try {
    response = await send();
  } catch (err) {
    clearTimeout(timer);
    dc.removeListener(name, listener);
    event.catch(() => {});
    throw err;
  }
  return [await event, response];
}

/**
 * start runs initialize → launch → (breakpoints) → configurationDone and
 * resolves with the first stopped event and the responses on the way.
 * initialize is the initialize request's arguments (DebugClient's defaults
 * if undefined), or false when the test has already sent it.
 */
async function start(dc, launchArgs, { functionBreakpoints, lineBreakpoints, initialize } = {}) {
  const init = initialize === false ? undefined : await dc.initializeRequest(initialize);
  // The adapter sends `initialized` right after the launch response.
  const [, launch] = await withEvent(dc, 'initialized', () => dc.launchRequest(launchArgs));
  let fbps, lbps;
  if (functionBreakpoints) {
    fbps = await dc.setFunctionBreakpointsRequest({ breakpoints: functionBreakpoints });
  }
  if (lineBreakpoints) {
    lbps = await dc.setBreakpointsRequest(lineBreakpoints);
  }
  const [stopped] = await withEvent(dc, 'stopped', () => dc.configurationDoneRequest());
  return { init, launch, fbps, lbps, stopped };
}

/**
 * step sends a request that ends in a stopped event (continue, next, an
 * adi/* navigation...) and resolves with that event, the response and the
 * stack trace at the new position.
 */
async function step(dc, send) {
  const [stopped, response] = await withEvent(dc, 'stopped', send);
  const trace = await dc.stackTraceRequest({ threadId: stopped.body.threadId });
  return { stopped, response, frames: trace.body.stackFrames, top: trace.body.stackFrames[0] };
}

/** frames returns the stack frames of thread 1 (the only goroutine of the fixtures used). */
async function frames(dc, threadId = 1) {
  return (await dc.stackTraceRequest({ threadId })).body.stackFrames;
}

/** fid is the fid in a frame name: "main.fib#5(n=2)" → "main.fib#5". */
function fid(frame) {
  const m = /^(\S+?#\d+)\(/.exec(frame.name);
  assert.ok(m, `frame name ${JSON.stringify(frame.name)} does not start with a fid`);
  return m[1];
}

/** variables returns the variables of a reference as a name → variable map, in order. */
async function variables(dc, variablesReference, extra = {}) {
  const r = await dc.variablesRequest({ variablesReference, ...extra });
  return new Map(r.body.variables.map((v) => [v.name, v]));
}

/** scopes returns the scopes of a frame as a name → scope map. */
async function scopes(dc, frameId) {
  const r = await dc.scopesRequest({ frameId });
  return new Map(r.body.scopes.map((s) => [s.name, s]));
}

/**
 * stop disconnects (DebugClient.stop: disconnect, then kill the adapter) and
 * never throws. DebugClient's requests have no timeout and the adapter ends
 * itself after a disconnect, so stop does not wait for an answer from an
 * adapter that has exited, nor for long from one that does not answer.
 */
async function stop(dc) {
  if (!dc) {
    return;
  }
  let timer;
  const late = new Promise((resolve) => {
    timer = setTimeout(resolve, 5000);
  });
  try {
    if (!dc.hasExited) {
      await Promise.race([dc.stop(), dc.exited, late]);
    }
  } finally {
    clearTimeout(timer);
    if (dc._adapterProcess) {
      dc._adapterProcess.kill();
      dc._adapterProcess = null;
    }
  }
}

/**
 * exitsAfterDisconnect asserts that the adapter, after answering disconnect,
 * ends by itself with status 0 (VS Code does not kill it).
 */
async function exitsAfterDisconnect(dc) {
  const bye = await dc.disconnectRequest({});
  assert.equal(bye.success, true);
  let timer;
  const late = new Promise((resolve) => {
    timer = setTimeout(() => resolve('still running 10 s after disconnect'), 10000);
  });
  const how = await Promise.race([dc.exited, late]);
  clearTimeout(timer);
  assert.deepEqual(how, { code: 0, signal: null });
}

module.exports = {
  ROOT,
  ADI,
  EVENT_TIMEOUT,
  testdata,
  client,
  raw,
  failing,
  withEvent,
  start,
  step,
  frames,
  fid,
  variables,
  scopes,
  stop,
  exitsAfterDisconnect,
};
