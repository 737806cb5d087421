import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { diagnosisHtml, diffHtml, escapeHtml, pageHtml, toolCardHtml } from '../../src/html';
import type { Diagnosis } from '../../src/panel';

const evil = `<script>alert("x")</script><img src=x onerror='y'>&amp;`;

/** No tag or attribute of evil survives unescaped in html. */
function assertInert(html: string): void {
  assert.ok(!html.includes('<script'), 'a <script> tag got through: ' + html);
  assert.ok(!html.includes('<img'), 'an <img> tag got through');
  assert.ok(!/onerror='/.test(html), 'a quoted attribute got through');
  assert.ok(!html.includes('"x")'), 'a double quote got through');
}

test('escapeHtml escapes the five HTML-significant characters', () => {
  assert.equal(escapeHtml(`<a href="x" title='y'>&</a>`), '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  assert.equal(escapeHtml('&amp;'), '&amp;amp;');
  assert.equal(escapeHtml(undefined), '');
  assert.equal(escapeHtml(42), '42');
});

function diag(over: Partial<Diagnosis> = {}): Diagnosis {
  return {
    root_cause: { file: 'offbyone.go', line: 21, func: 'offbyone.SumFirst', fid: 'offbyone.SumFirst#1' },
    summary: 'the loop stops one element early',
    explanation: 'i < n-1 skips the n-th element.',
    evidence: [{ fid: 'offbyone.SumFirst#1', file: 'offbyone.go', line: 21, claim: 'the loop ran 24 times', value: '24' }],
    fix: '--- a/offbyone.go\n+++ b/offbyone.go\n@@ -1 +1 @@\n-a\n+b\n',
    verification: { status: 'passed', command: 'go test ./testdata/offbyone', output: '' },
    confidence: 'high', method: 'loop-bound', source: 'offline',
    ...over,
  };
}

test('diagnosisHtml has the hooks the panel and the e2e test use', () => {
  const h = diagnosisHtml(diag());
  assert.match(h, /<a class="root-cause" href="#" data-file="offbyone.go" data-line="21">offbyone.go:21<\/a>/);
  assert.match(h, /class="evidence"/);
  assert.match(h, /class="verification status-passed"/);
  assert.match(h, /<pre class="diff">/);
  assert.match(h, /<span class="add">\+b<\/span>/);
  assert.match(h, /<span class="del">-a<\/span>/);
  assert.match(h, /<button id="apply">/);
  assert.match(h, /<button id="rerun">/);
  assert.match(h, /<span id="rerun-status">/);
});

test('diagnosisHtml without a fix has no Apply button', () => {
  const h = diagnosisHtml(diag({ fix: '', verification: null }));
  assert.ok(!h.includes('id="apply"'));
  assert.ok(!h.includes('pre class="diff"'));
  assert.match(h, /no fix/);
});

test('diagnosisHtml escapes every text of the diagnosis', () => {
  const h = diagnosisHtml(diag({
    root_cause: { file: evil, line: 1, func: evil, fid: evil },
    summary: evil, explanation: evil,
    evidence: [{ fid: evil, file: evil, line: 2, claim: evil, value: evil }],
    fix: `--- a/x\n+++ b/x\n@@ -1 +1 @@\n-${evil}\n+${evil}\n`,
    verification: { status: evil, command: evil, output: evil },
    confidence: evil, method: evil, source: evil, unsupported: [evil], partial: evil,
  }));
  assertInert(h);
  assert.ok(h.includes('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;'));
});

test('toolCardHtml and diffHtml escape', () => {
  assertInert(toolCardHtml(evil, evil, { expr: evil }));
  assertInert(toolCardHtml('1', 'frame', evil));
  assertInert(diffHtml(evil));
  const card = toolCardHtml('c1', 'frame', { fid: 'main.fib#3' });
  assert.match(card, /^<details class="tool-card" data-id="c1">/);
  assert.match(card, /main.fib#3/);
});

test('pageHtml has a strict CSP with the nonce and the DOM hooks', () => {
  const h = pageHtml({ cspSource: 'vscode-webview://abc', nonce: 'N0nce+/=', scriptUri: 'vscode-webview://abc/chat.js', styleUri: 'vscode-webview://abc/chat.css', mode: evil });
  const csp = /http-equiv="Content-Security-Policy" content="([^"]*)"/.exec(h);
  assert.ok(csp, 'no CSP');
  assert.match(csp![1], /default-src 'none'/);
  assert.match(csp![1], /script-src 'nonce-N0nce\+\/='/);
  assert.ok(!csp![1].includes('unsafe-inline') && !csp![1].includes('unsafe-eval'));
  assert.match(h, /<script nonce="N0nce\+\/=" src="vscode-webview:\/\/abc\/chat.js"><\/script>/);
  assert.equal((h.match(/<script/g) ?? []).length, 1);
  for (const id of ['mode', 'transcript', 'diagnosis', 'question', 'ask', 'stop']) {
    assert.ok(h.includes(`id="${id}"`), `no #${id}`);
  }
  assertInert(h.replace(/<script nonce[^>]*><\/script>/, ''));
});
