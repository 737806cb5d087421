// The @adi chat participant and the language-model tools, against the
// vscode stand-in: what they send to the session and what they stream.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { EventEmitter, participants, stub, tools } from './vscode-stub';
/* eslint-disable @typescript-eslint/no-var-requires */
const { registerParticipant } = require('../../src/participant') as typeof import('../../src/participant');
const { registerTools } = require('../../src/lmtools') as typeof import('../../src/lmtools');

const diagnosis = {
  root_cause: { file: 'search.go', line: 24, func: 'search.Index', fid: 'search.Index#2' },
  summary: 'the loop stops early', explanation: 'lo < hi', evidence: [], confidence: 'high', method: 'm', source: 'llm',
  fix: '--- a/search.go\n+++ b/search.go\n@@ -1 +1 @@\n-a\n+b\n', verification: { status: 'passed', command: '', output: '' },
};

function fakeSession(id: string, onRequest: (cmd: string, args: any) => any): any {
  return { id, type: 'adi', name: id, configuration: {}, customRequest: async (cmd: string, args: any) => onRequest(cmd, args) };
}

function fakeStream() {
  const out: string[] = [];
  return { out, markdown: (s: string) => out.push('md:' + s), progress: (s: string) => out.push('progress:' + s) };
}

function token() {
  const e = new EventEmitter<void>();
  return { isCancellationRequested: false, onCancellationRequested: e.event, cancel: () => e.fire() };
}

test('@adi streams the agent\'s events of the active session into the Chat view', async () => {
  const agent = new EventEmitter<any>();
  const sent: Array<[string, any]> = [];
  let s: any;
  s = fakeSession('s1', (cmd, args) => {
    sent.push([cmd, args]);
    if (cmd === 'adi/diagnose') {
      agent.fire({ session: s, body: { kind: 'text', text: 'looking at *frames*' } });
      agent.fire({ session: s, body: { kind: 'text', text: '\n' } });
      agent.fire({ session: fakeSession('other', () => 0), body: { kind: 'text', text: 'not this one\n' } });
      agent.fire({ session: s, body: { kind: 'toolCall', tool: 'frame', args: { fid: 'search.Index#2' } } });
      agent.fire({ session: s, body: { kind: 'diagnosis', diagnosis } });
      return { text: 'done' };
    }
    return {};
  });
  const ctl: any = { sessions: { active: () => s, onAgentEvent: agent.event }, waitStopped: async () => s, diagnose: (x: any, q: string) => x.customRequest('adi/diagnose', q ? { question: q } : {}), cancel: (x: any) => x.customRequest('adi/cancel', {}) };
  const ctx: any = { extensionUri: { path: '/ext' }, subscriptions: [] };
  assert.equal(registerParticipant(ctx, ctl), true);
  const p = participants[participants.length - 1];
  assert.equal(p.id, 'adi.chat');
  const stream = fakeStream();
  await p.handler({ prompt: 'why?' }, {}, stream, token());
  assert.deepEqual(sent, [['adi/diagnose', { question: 'why?' }]]);
  assert.equal(stream.out[0], 'md:looking at \\*frames\\*\n');
  assert.equal(stream.out[1], 'progress:adi frame {"fid":"search.Index#2"}');
  assert.match(stream.out[2], /^md:\n\n\*\*the loop stops early\*\*/);
  assert.match(stream.out[2], /```diff\n--- a\/search.go/);
  assert.equal(stream.out.length, 3);
  assert.ok(!stream.out.join().includes('not this one'));
});

test('@adi cancels with adi/cancel, and says what to do without a session', async () => {
  const agent = new EventEmitter<any>();
  const sent: string[] = [];
  const tk = token();
  let s: any;
  s = fakeSession('s2', async (cmd) => {
    sent.push(cmd);
    if (cmd === 'adi/diagnose') {
      tk.cancel();
      agent.fire({ session: s, body: { kind: 'error', text: 'cancelled' } });
      throw new Error('adi/diagnose was cancelled');
    }
    return {};
  });
  const ctl: any = { sessions: { active: () => s, onAgentEvent: agent.event }, waitStopped: async () => s, diagnose: (x: any, q: string) => x.customRequest('adi/diagnose', { question: q }), cancel: (x: any) => x.customRequest('adi/cancel', {}) };
  registerParticipant({ extensionUri: { path: '/e' }, subscriptions: [] } as any, ctl);
  const stream = fakeStream();
  await participants[participants.length - 1].handler({ prompt: '' }, {}, stream, tk);
  assert.deepEqual(sent, ['adi/diagnose', 'adi/cancel']);
  assert.deepEqual(stream.out, ['md:\n\nadi: cancelled']);

  const none: any = { sessions: { active: () => undefined, onAgentEvent: agent.event }, target: () => ({ error: 'adi: open a Go test file' }) };
  registerParticipant({ extensionUri: { path: '/e' }, subscriptions: [] } as any, none);
  const s2 = fakeStream();
  await participants[participants.length - 1].handler({ prompt: 'x' }, {}, s2, token());
  assert.deepEqual(s2.out, ['md:No adi debug session is running. adi: open a Go test file']);
});

test('the language-model tools send the adi/* request and return its text', async () => {
  const sent: Array<[string, any]> = [];
  let active: any = fakeSession('s', (cmd, args) => {
    sent.push([cmd, args]);
    return { text: `answer of ${cmd}`, fid: 'x' };
  });
  const ctx: any = { subscriptions: [] };
  assert.equal(registerTools(ctx, { active: () => active } as any), true);
  assert.deepEqual([...tools.keys()].sort(), ['adi_break', 'adi_callTree', 'adi_continue', 'adi_execute', 'adi_frame', 'adi_prev', 'adi_stepInto', 'adi_stepOut']);
  const r = await tools.get('adi_execute').invoke({ input: { fid: 'main.f#1', line: 3, stmt: 'x' } });
  assert.deepEqual(sent, [['adi/execute', { fid: 'main.f#1', line: 3, stmt: 'x' }]]);
  assert.ok(r instanceof stub.LanguageModelToolResult);
  assert.equal((r as any).content[0].value, 'answer of adi/execute');
  await tools.get('adi_continue').invoke({});
  assert.deepEqual(sent[1], ['adi/continue', {}]);
  active = undefined;
  await assert.rejects(tools.get('adi_frame').invoke({ input: {} }), /no adi debug session is running: start one/);
});

test('without the chat and lm APIs nothing is registered', () => {
  const chat = stub.chat;
  const lm = stub.lm;
  (stub as any).chat = undefined;
  (stub as any).lm = undefined;
  try {
    assert.equal(registerParticipant({ subscriptions: [] } as any, {} as any), false);
    assert.equal(registerTools({ subscriptions: [] } as any, {} as any), false);
  } finally {
    stub.chat = chat;
    stub.lm = lm;
  }
});
