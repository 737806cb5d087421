import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { AgentEvent, diagnosisMarkdown, mdEscape, PanelModel } from '../../src/panel';

const diagnosis = {
  root_cause: { file: 'search.go', line: 24, func: 'search.Index', fid: 'search.Index#2' },
  summary: 'the loop gives up one element early', explanation: 'lo < hi should be lo <= hi.',
  evidence: [{ fid: 'search.Index#2', claim: 'returned -1' }],
  fix: '--- a/search.go\n+++ b/search.go\n@@ -1 +1 @@\n-for lo < hi {\n+for lo <= hi {\n',
  verification: { status: 'passed', command: 'go test .', output: '' },
  confidence: 'high', method: 'boundary', source: 'offline',
};

// The stream of one adi/diagnose as the adapter sends it (adapter/diagnose.go).
const stream: AgentEvent[] = [
  { kind: 'text', text: 'recording ' },
  { kind: 'text', text: 'done\n' },
  { kind: 'toolCall', tool: 'frame', id: 'call_1', args: { fid: 'search.Index#2' } },
  { kind: 'toolCall', tool: 'callTree', id: 'call_2', args: {} },
  { kind: 'toolResult', tool: 'callTree', id: 'call_2', result: 'tree…' },
  { kind: 'toolResult', tool: 'frame', id: 'call_1', result: 'frame…' },
  { kind: 'diagnosis', diagnosis },
  { kind: 'usage', usage: { rounds: 3, prompt_tokens: 1200, completion_tokens: 80 } },
];

test('PanelModel turns an agent stream into panel messages', () => {
  const m = new PanelModel();
  const out = stream.flatMap((e) => m.apply(e));
  assert.deepEqual(out.map((x) => x.type), ['text', 'text', 'toolCall', 'toolCall', 'toolResult', 'toolResult', 'diagnosis', 'usage', 'busy']);
  assert.deepEqual(out.filter((x) => x.type === 'toolResult').map((x: any) => [x.id, x.result]), [['call_2', 'tree…'], ['call_1', 'frame…']]);
  const d = out.find((x) => x.type === 'diagnosis') as { html: string };
  assert.match(d.html, /class="root-cause"[^>]*>search.go:24</);
  assert.match(d.html, /<pre class="diff">/);
  assert.equal(m.diagnosis?.root_cause.line, 24);
  assert.deepEqual(out.find((x) => x.type === 'usage'), { type: 'usage', text: '3 rounds, 1200 prompt + 80 completion tokens' });
  assert.deepEqual(out[out.length - 1], { type: 'busy', busy: false });
  // The history replays it all to a re-opened panel, without busy states.
  assert.equal(m.history.length, out.length - 1);
});

test('tool results without ids answer the oldest open call', () => {
  const m = new PanelModel();
  const a = m.apply({ kind: 'toolCall', tool: 'frame' })[0] as any;
  const b = m.apply({ kind: 'toolCall', tool: 'prev' })[0] as any;
  assert.notEqual(a.id, b.id);
  assert.equal((m.apply({ kind: 'toolResult', result: 'r1' })[0] as any).id, a.id);
  assert.equal((m.apply({ kind: 'toolResult', result: 'r2' })[0] as any).id, b.id);
});

test('an error event ends the stream and is shown', () => {
  const m = new PanelModel();
  assert.deepEqual(m.apply({ kind: 'error', text: 'cancelled' }), [{ type: 'error', text: 'cancelled' }, { type: 'busy', busy: false }]);
  assert.deepEqual(m.apply({ kind: 'error' })[0], { type: 'error', text: 'the diagnosis failed' });
});

test('offline usage, empty text and unknown kinds', () => {
  const m = new PanelModel();
  assert.deepEqual(m.apply({ kind: 'usage', usage: { rounds: 0, prompt_tokens: 0, completion_tokens: 0 } })[0], { type: 'usage', text: 'no model tokens used' });
  assert.deepEqual(m.apply({ kind: 'text', text: '' }), []);
  assert.deepEqual(m.apply({ kind: 'somethingNew' }), []);
  assert.deepEqual(m.apply({ kind: 'diagnosis' }), []);
});

test('push records the extension\'s messages; clear forgets the conversation', () => {
  const m = new PanelModel();
  m.push({ type: 'user', text: 'why?' });
  m.apply({ kind: 'diagnosis', diagnosis });
  assert.equal(m.history.length, 2);
  m.push({ type: 'busy', busy: true });
  assert.equal(m.history.length, 2);
  m.push({ type: 'clear' });
  assert.equal(m.history.length, 0);
  assert.equal(m.diagnosis, undefined);
});

test('diagnosisMarkdown has the root cause, evidence, verification and the diff', () => {
  const md = diagnosisMarkdown(diagnosis);
  assert.match(md, /Root cause: `search.go:24` in `search.Index`/);
  assert.match(md, /- `search.Index#2` returned -1/);
  assert.match(md, /Verification: passed · confidence high/);
  assert.match(md, /```diff\n--- a\/search.go[\s\S]*\+for lo <= hi \{\n```/);
  assert.equal(mdEscape('*a* `b` [c](d) <e>'), '\\*a\\* \\`b\\` \\[c\\](d) \\<e\\>');
});
