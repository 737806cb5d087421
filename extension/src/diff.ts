// Unified diffs (as adi's diagnoser writes a fix: `--- a/FILE`, `+++ b/FILE`,
// paths relative to the module root): parsed, and applied to a file's
// text for the Apply button. No vscode here.

export interface HunkLine {
  /** ' ' context, '-' removed, '+' added. */
  kind: ' ' | '-' | '+';
  text: string;
  /** A "\ No newline at end of file" marker follows the line. */
  noEOL: boolean;
}

export interface Hunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: HunkLine[];
}

export interface FilePatch {
  /** As written, without a/ and b/; "/dev/null" for a created or deleted file. */
  oldPath: string;
  newPath: string;
  hunks: Hunk[];
}

export class PatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PatchError';
  }
}

/** The file a patch changes. */
export function patchTarget(p: FilePatch): string {
  return p.newPath !== '/dev/null' ? p.newPath : p.oldPath;
}

function headerPath(s: string): string {
  let p = s;
  const tab = p.indexOf('\t');
  if (tab >= 0) {
    p = p.slice(0, tab);
  }
  p = p.trim();
  if (p.startsWith('"') && p.endsWith('"') && p.length >= 2) {
    p = p.slice(1, -1);
  }
  if (p !== '/dev/null' && (p.startsWith('a/') || p.startsWith('b/'))) {
    p = p.slice(2);
  }
  return p;
}

const hunkHeader = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/** Parses a unified diff; text before the first file header is skipped. */
export function parseDiff(diff: string): FilePatch[] {
  const lines = diff.replace(/\r\n/g, '\n').split('\n');
  const out: FilePatch[] = [];
  let i = 0;
  while (i < lines.length) {
    if (!lines[i].startsWith('--- ') || i + 1 >= lines.length || !lines[i + 1].startsWith('+++ ')) {
      i++;
      continue;
    }
    const fp: FilePatch = { oldPath: headerPath(lines[i].slice(4)), newPath: headerPath(lines[i + 1].slice(4)), hunks: [] };
    i += 2;
    while (i < lines.length && lines[i].startsWith('@@ ')) {
      const m = hunkHeader.exec(lines[i]);
      if (!m) {
        throw new PatchError(`${patchTarget(fp)}: bad hunk header "${lines[i]}"`);
      }
      const h: Hunk = {
        oldStart: Number(m[1]), oldLines: m[2] === undefined ? 1 : Number(m[2]),
        newStart: Number(m[3]), newLines: m[4] === undefined ? 1 : Number(m[4]), lines: [],
      };
      i++;
      let olds = 0;
      let news = 0;
      while (i < lines.length && (olds < h.oldLines || news < h.newLines)) {
        const l = lines[i];
        const kind = l === '' ? ' ' : l[0];
        if (kind === '\\') {
          if (h.lines.length > 0) {
            h.lines[h.lines.length - 1].noEOL = true;
          }
          i++;
          continue;
        }
        if (kind !== ' ' && kind !== '-' && kind !== '+') {
          throw new PatchError(`${patchTarget(fp)}: hunk ${fp.hunks.length + 1} ends early: line "${l}" (want ${h.oldLines} old and ${h.newLines} new lines)`);
        }
        h.lines.push({ kind, text: l.slice(1), noEOL: false });
        if (kind !== '+') {
          olds++;
        }
        if (kind !== '-') {
          news++;
        }
        i++;
      }
      if (olds !== h.oldLines || news !== h.newLines) {
        throw new PatchError(`${patchTarget(fp)}: hunk ${fp.hunks.length + 1} is cut short (${olds}/${h.oldLines} old, ${news}/${h.newLines} new lines)`);
      }
      if (i < lines.length && lines[i].startsWith('\\')) {
        h.lines[h.lines.length - 1].noEOL = true;
        i++;
      }
      fp.hunks.push(h);
    }
    if (fp.hunks.length === 0) {
      throw new PatchError(`${patchTarget(fp)}: no @@ hunk follows the file header`);
    }
    out.push(fp);
  }
  if (out.length === 0) {
    throw new PatchError('no file header (--- a/FILE, +++ b/FILE) found in the diff');
  }
  return out;
}

function matchesAt(lines: string[], at: number, want: string[]): boolean {
  if (at < 0 || at + want.length > lines.length) {
    return false;
  }
  for (let k = 0; k < want.length; k++) {
    if (lines[at + k] !== want[k]) {
      return false;
    }
  }
  return true;
}

/**
 * Applies the hunks of p to text and returns the new text. A hunk whose
 * context moved (the file was edited since) is found at the nearest
 * offset; one whose context is not there is an error naming the hunk. The
 * file's line endings (\n or \r\n) are kept.
 */
export function applyPatch(text: string, p: FilePatch): string {
  const crlf = text.includes('\r\n');
  const body = crlf ? text.replace(/\r\n/g, '\n') : text;
  let endsWithEOL = body.endsWith('\n');
  const lines = body === '' ? [] : (endsWithEOL ? body.slice(0, -1) : body).split('\n');
  let offset = 0;
  let lastEnd = 0;
  p.hunks.forEach((h, n) => {
    const old = h.lines.filter((l) => l.kind !== '+').map((l) => l.text);
    const repl = h.lines.filter((l) => l.kind !== '-').map((l) => l.text);
    const expected = (h.oldLines === 0 ? h.oldStart : h.oldStart - 1) + offset;
    let at = -1;
    for (let d = 0; d <= lines.length; d++) {
      if (expected - d >= lastEnd && matchesAt(lines, expected - d, old)) {
        at = expected - d;
        break;
      }
      if (matchesAt(lines, expected + d, old) && expected + d >= lastEnd) {
        at = expected + d;
        break;
      }
    }
    if (at < 0) {
      throw new PatchError(`${patchTarget(p)}: hunk ${n + 1} (@@ -${h.oldStart},${h.oldLines} @@) does not apply: its lines are not in the file (was it edited since the diagnosis?)`);
    }
    lines.splice(at, old.length, ...repl);
    offset += repl.length - old.length + (at - expected);
    lastEnd = at + repl.length;
    const tail = h.lines[h.lines.length - 1];
    if (at + repl.length === lines.length && tail) {
      // The hunk reaches the end of the file: its markers decide the last
      // newline.
      const lastNew = [...h.lines].reverse().find((l) => l.kind !== '-');
      if (lastNew) {
        endsWithEOL = !lastNew.noEOL;
      }
    }
  });
  let out = lines.join('\n');
  if (endsWithEOL && lines.length > 0) {
    out += '\n';
  }
  return crlf ? out.replace(/\n/g, '\r\n') : out;
}

/** The lines of a diff with the class the panel colours them by. */
export function classifyDiffLines(diff: string): Array<{ cls: 'add' | 'del' | 'hunk' | 'file' | 'ctx'; text: string }> {
  const lines = diff.replace(/\r\n/g, '\n').replace(/\n$/, '').split('\n');
  return lines.map((text) => {
    if (text.startsWith('+++ ') || text.startsWith('--- ')) {
      return { cls: 'file' as const, text };
    }
    if (text.startsWith('@@')) {
      return { cls: 'hunk' as const, text };
    }
    if (text.startsWith('+')) {
      return { cls: 'add' as const, text };
    }
    if (text.startsWith('-')) {
      return { cls: 'del' as const, text };
    }
    return { cls: 'ctx' as const, text };
  });
}
