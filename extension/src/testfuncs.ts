// Test functions of a _test.go file, for the CodeLens and for F5 without a
// launch.json. No vscode here.
import * as path from 'path';

export interface TestFunc {
  name: string;
  /** 0-based line of the func keyword. */
  line: number;
}

// func TestXxx(t *testing.T): Xxx does not start with a lower-case letter
// (go test's rule); the parameter may have any name, or none.
const testDecl = /^func\s+(Test(?:[^a-z\s(][\p{L}\p{N}_]*)?)\s*\(\s*(?:[\p{L}_][\p{L}\p{N}_]*\s+)?\*\s*testing\.T\s*\)/u;

/** Whether file is a Go test file. */
export function isTestFile(file: string): boolean {
  return path.basename(file).endsWith('_test.go');
}

/** The top-level test functions of a _test.go file's text. */
export function findTests(text: string): TestFunc[] {
  const out: TestFunc[] = [];
  const lines = text.split(/\r?\n/);
  let inBlockComment = false;
  let inRawString = false;
  lines.forEach((l, i) => {
    const wasInside = inBlockComment || inRawString;
    // Track /* */ comments and `raw strings` spanning lines, roughly: a
    // test declaration never starts inside one.
    for (let k = 0; k < l.length; k++) {
      const c = l[k];
      if (inBlockComment) {
        if (c === '*' && l[k + 1] === '/') {
          inBlockComment = false;
          k++;
        }
      } else if (inRawString) {
        if (c === '`') {
          inRawString = false;
        }
      } else if (c === '/' && l[k + 1] === '/') {
        break;
      } else if (c === '/' && l[k + 1] === '*') {
        inBlockComment = true;
        k++;
      } else if (c === '`') {
        inRawString = true;
      } else if (c === '"' || c === '\'') {
        // Skip an interpreted string or rune literal.
        for (k++; k < l.length && l[k] !== c; k++) {
          if (l[k] === '\\') {
            k++;
          }
        }
      }
    }
    if (wasInside) {
      return;
    }
    const m = testDecl.exec(l);
    if (m) {
      out.push({ name: m[1], line: i });
    }
  });
  return out;
}

/** The test whose body holds line (0-based): the last test declared at or before it. */
export function testAt(text: string, line: number): string | undefined {
  let name: string | undefined;
  for (const t of findTests(text)) {
    if (t.line <= line) {
      name = t.name;
    }
  }
  return name;
}

/** The -run pattern that runs exactly the test name (and its subtests). */
export function runPattern(name: string): string {
  return '^' + name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '$';
}
