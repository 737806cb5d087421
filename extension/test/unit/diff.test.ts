import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { applyPatch, classifyDiffLines, parseDiff, PatchError, patchTarget } from '../../src/diff';

// A file and a fix as adi's diagnoser writes them (agent/udiff/diff.go: a/ and b/
// prefixes, 3 lines of context, paths relative to the module root).
const source = [
  'package offbyone',
  '',
  '// SumFirst adds the first n elements of xs.',
  'func SumFirst(xs []int, n int) int {',
  '\ttotal := 0',
  '\tfor i := 0; i < n-1; i++ {',
  '\t\ttotal += xs[i]',
  '\t}',
  '\treturn total',
  '}',
  '',
].join('\n');

const fix = [
  '--- a/testdata/offbyone/offbyone.go',
  '+++ b/testdata/offbyone/offbyone.go',
  '@@ -3,7 +3,7 @@',
  ' // SumFirst adds the first n elements of xs.',
  ' func SumFirst(xs []int, n int) int {',
  ' \ttotal := 0',
  '-\tfor i := 0; i < n-1; i++ {',
  '+\tfor i := 0; i < n; i++ {',
  ' \t\ttotal += xs[i]',
  ' \t}',
  ' \treturn total',
  '',
].join('\n');

test('parseDiff reads the file header and hunk of an adi fix', () => {
  const ps = parseDiff(fix);
  assert.equal(ps.length, 1);
  assert.equal(ps[0].oldPath, 'testdata/offbyone/offbyone.go');
  assert.equal(patchTarget(ps[0]), 'testdata/offbyone/offbyone.go');
  assert.equal(ps[0].hunks.length, 1);
  const h = ps[0].hunks[0];
  assert.deepEqual([h.oldStart, h.oldLines, h.newStart, h.newLines], [3, 7, 3, 7]);
  assert.deepEqual(h.lines.map((l) => l.kind).join(''), '   -+   ');
});

test('applyPatch changes exactly the hunk\'s lines', () => {
  const out = applyPatch(source, parseDiff(fix)[0]);
  assert.equal(out, source.replace('i < n-1;', 'i < n;'));
});

test('applyPatch finds a hunk whose lines moved', () => {
  const moved = '// a comment added above\n// and another\n' + source;
  const out = applyPatch(moved, parseDiff(fix)[0]);
  assert.equal(out, moved.replace('i < n-1;', 'i < n;'));
});

test('applyPatch refuses a hunk whose context is not in the file', () => {
  const edited = source.replace('\ttotal := 0', '\tsum := 0');
  assert.throws(() => applyPatch(edited, parseDiff(fix)[0]), (e: unknown) =>
    e instanceof PatchError && /hunk 1 .*does not apply/.test(e.message) && e.message.includes('offbyone.go'));
});

test('applyPatch keeps CRLF line endings', () => {
  const crlf = source.replace(/\n/g, '\r\n');
  const out = applyPatch(crlf, parseDiff(fix)[0]);
  assert.equal(out, crlf.replace('i < n-1;', 'i < n;'));
  assert.ok(!/[^\r]\n/.test(out), 'a bare \\n was written');
});

test('applyPatch applies several hunks, later ones shifted by earlier ones', () => {
  const text = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', ''].join('\n');
  const d = [
    '--- a/x.txt', '+++ b/x.txt',
    '@@ -1,2 +1,3 @@', ' a', '+a2', ' b',
    '@@ -8,3 +9,2 @@', ' h', '-i', ' j', '',
  ].join('\n');
  assert.equal(applyPatch(text, parseDiff(d)[0]), ['a', 'a2', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'j', ''].join('\n'));
});

test('applyPatch honours "No newline at end of file"', () => {
  const d = ['--- a/x', '+++ b/x', '@@ -1,2 +1,2 @@', ' a', '-b', '\\ No newline at end of file', '+c', '\\ No newline at end of file', ''].join('\n');
  assert.equal(applyPatch('a\nb', parseDiff(d)[0]), 'a\nc');
  const add = ['--- a/x', '+++ b/x', '@@ -1,2 +1,2 @@', ' a', '-b', '\\ No newline at end of file', '+c', ''].join('\n');
  assert.equal(applyPatch('a\nb', parseDiff(add)[0]), 'a\nc\n');
});

test('parseDiff reads several files and skips text before the first header', () => {
  const d = 'The fix:\n' + fix + '--- a/other.go\n+++ b/other.go\n@@ -1 +1 @@\n-x\n+y\n';
  const ps = parseDiff(d);
  assert.deepEqual(ps.map(patchTarget), ['testdata/offbyone/offbyone.go', 'other.go']);
  assert.equal(applyPatch('x\n', ps[1]), 'y\n');
});

test('parseDiff errors say what is wrong', () => {
  assert.throws(() => parseDiff('just text'), /no file header/);
  assert.throws(() => parseDiff('--- a/x\n+++ b/x\n'), /x: no @@ hunk/);
  assert.throws(() => parseDiff('--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n'), /hunk 1 is cut short/);
  assert.throws(() => parseDiff('--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n?b\n'), /hunk 1 ends early/);
});

test('classifyDiffLines colours added, removed, hunk and header lines', () => {
  const c = classifyDiffLines(fix);
  assert.deepEqual(c.slice(0, 4).map((l) => l.cls), ['file', 'file', 'hunk', 'ctx']);
  assert.equal(c.find((l) => l.text.startsWith('-\tfor'))?.cls, 'del');
  assert.equal(c.find((l) => l.text.startsWith('+\tfor'))?.cls, 'add');
  assert.equal(c.length, 11);
});
