// AdiSessions is the contract with the views: its events are checked here
// with a minimal stand-in for the vscode module (the debug API it uses),
// since the tracker's routing needs no editor.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { stub, terminate, trackerFactories as factories } from './vscode-stub';

// eslint-disable-next-line @typescript-eslint/no-var-requires
const { AdiSessions } = require('../../src/sessions') as typeof import('../../src/sessions');

function session(id: string): any {
  return { id, type: 'adi', name: id, configuration: {} };
}

test('AdiSessions routes the adapter\'s events of adi sessions', () => {
  const s = new AdiSessions();
  const a = session('a');
  const tracker = factories.get('adi').createDebugAdapterTracker(a);
  const got: string[] = [];
  s.onDidStart((x) => got.push('start ' + x.id));
  s.onDidStop((e) => got.push('stop ' + e.session.id + ' ' + e.body.reason));
  s.onAgentEvent((e) => got.push('agent ' + e.body.kind));
  s.onSourceChanged((e) => got.push('changed ' + e.body.files.join(',')));
  s.onDidEnd((x) => got.push('end ' + x.id));

  tracker.onWillStartSession();
  assert.equal(s.active(), a);
  assert.equal(s.hasStopped(a), false);
  tracker.onDidSendMessage({ type: 'response', command: 'launch', success: true });
  tracker.onDidSendMessage({ type: 'event', event: 'output', body: { output: 'x' } });
  tracker.onDidSendMessage({ type: 'event', event: 'stopped', body: { reason: 'breakpoint', threadId: 1 } });
  assert.equal(s.hasStopped(a), true);
  tracker.onDidSendMessage({ type: 'event', event: 'adi/agent', body: { kind: 'text', text: 'hi' } });
  tracker.onDidSendMessage({ type: 'event', event: 'adi/sourceChanged', body: { files: ['/m/x.go'], stale: true, root: '/m' } });
  tracker.onWillStopSession();
  tracker.onExit(0, undefined);
  terminate.fire(a);
  assert.deepEqual(got, ['start a', 'stop a breakpoint', 'agent text', 'changed /m/x.go', 'end a']);
  assert.equal(s.active(), undefined);
  s.dispose();
  assert.equal(factories.has('adi'), false);
});

test('AdiSessions.active prefers VS Code\'s active adi session, else the newest', () => {
  const s = new AdiSessions();
  const a = session('a');
  const b = session('b');
  factories.get('adi').createDebugAdapterTracker(a).onWillStartSession();
  factories.get('adi').createDebugAdapterTracker(b).onWillStartSession();
  stub.debug.activeDebugSession = undefined;
  assert.equal(s.active(), b);
  stub.debug.activeDebugSession = a;
  assert.equal(s.active(), a);
  stub.debug.activeDebugSession = { id: 'go', type: 'go' };
  assert.equal(s.active(), b);
  assert.deepEqual(s.all().map((x) => x.id), ['a', 'b']);
  terminate.fire(b);
  assert.equal(s.active(), a);
  stub.debug.activeDebugSession = undefined;
  s.dispose();
});
