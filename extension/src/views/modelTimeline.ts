// The timeline's logic, free of the vscode module: the frames of a call
// tree laid out over time (x: entry order, y: depth) as an icicle chart,
// with the frames too narrow to see merged per pixel column, and its SVG.

import { NodeJSON, escapeHtml, formatArgs, outcomeText, shortName } from './model';
import { Failures, Status, ownFailure } from './modelTree';

/** A frame on the timeline: it starts at x, and the frames it called, directly or not, are the next size-1 entries. */
export interface TimelineFrame {
  fid: string;
  depth: number;
  x: number;
  size: number;
  status: Status;
  /** Callees the answer left out (a depth or breadth cut), counted once each in size. */
  elided: number;
  title: string;
}

export interface TimelineData {
  frames: TimelineFrame[];
  /** Entries in all: shown frames plus the left-out callees. */
  total: number;
  maxDepth: number;
  /** The failure to mark: the frame that panicked the run when shown, else the deepest failed frame. */
  failure?: string;
}

/**
 * Flattens a call tree in entry order (pre-order: a frame is entered before
 * its callees, and its callees in order). A callee left out of the answer
 * takes one entry (its own callees are unknown), placed where it was left
 * out: in the middle of a long list, or after the shown children.
 */
export function flatten(root: NodeJSON, failures: Failures): TimelineData {
  const frames: TimelineFrame[] = [];
  let maxDepth = 0;
  const walk = (n: NodeJSON, depth: number, x: number): { size: number; failing: boolean } => {
    const f: TimelineFrame = {
      fid: n.fid,
      depth,
      x,
      size: 1,
      status: ownFailure(n, failures) ? 'failed' : 'ok',
      elided: n.more ?? 0,
      title: '',
    };
    frames.push(f);
    maxDepth = Math.max(maxDepth, depth);
    let next = x + 1;
    let failing = false;
    const kids = n.children ?? [];
    const gapAt = n.more && n.more_after ? n.more_after : kids.length;
    kids.forEach((k, i) => {
      if (i === gapAt) next += n.more ?? 0;
      const r = walk(k, depth + 1, next);
      next += r.size;
      failing = failing || r.failing;
    });
    if (gapAt >= kids.length) next += n.more ?? 0;
    f.size = next - x;
    if (f.status === 'ok' && (failing || failures.panicStack.has(n.fid))) f.status = 'path';
    const more = f.elided ? `\n${f.elided} callee${f.elided === 1 ? '' : 's'} not shown` : '';
    f.title = `${n.fid}(${formatArgs(n.args ?? [])}) ${outcomeText(n)}${more}`;
    return { size: f.size, failing: f.status !== 'ok' };
  };
  const r = walk(root, 0, 0);
  let failure: TimelineFrame | undefined;
  for (const f of frames) {
    if (f.status !== 'failed') continue;
    if (f.fid === failures.panicFrame) {
      failure = f;
      break;
    }
    if (!failure || f.depth > failure.depth) failure = f;
  }
  return { frames, total: r.size, maxDepth, failure: failure?.fid };
}

/**
 * The frame to mark as inspected: the first of chain (the inspected frame,
 * then its callers) that is on the chart, since the call tree leaves out
 * frames deeper than its depth and the middle of long lists of callees.
 */
export function onChart(d: TimelineData, chain: string[]): string | undefined {
  if (chain.length === 0) return undefined;
  if (d.frames.some((f) => f.fid === chain[0])) return chain[0];
  const shown = new Set(d.frames.map((f) => f.fid));
  return chain.find((f) => shown.has(f));
}

/** A rectangle of the chart: one frame, or several narrow ones merged. */
export interface Cell {
  x: number;
  y: number;
  w: number;
  h: number;
  depth: number;
  /** The frame a click jumps to: the cell's frame, or the first frame merged into it (the failing one if any). */
  fid: string;
  count: number;
  status: Status;
  current: boolean;
  label: string;
  title: string;
}

export interface Layout {
  width: number;
  height: number;
  cells: Cell[];
  /** x of the inspected frame's start, when it is on the chart. */
  currentX?: number;
  /** x of the start of the failure's frame (TimelineData.failure). */
  failureX?: number;
  total: number;
  shown: number;
}

export interface LayoutOptions {
  width: number;
  rowHeight?: number;
  /** Frames narrower than this (pixels) are merged into their column. */
  minWidth?: number;
  current?: string;
  maxDepth?: number;
}

const rank: Record<Status, number> = { ok: 0, path: 1, failed: 2 };

/**
 * Lays the frames out: x from entry order scaled to the width, y from
 * depth. A frame at least minWidth wide gets its own cell; narrower frames
 * at one depth are merged per column of minWidth pixels into a cell that
 * counts them and takes the worst status among them, so the number of
 * cells stays under (width / minWidth + frames wide enough) per row,
 * whatever the number of frames.
 */
export function layout(d: TimelineData, o: LayoutOptions): Layout {
  const width = Math.max(50, Math.floor(o.width));
  const rowH = o.rowHeight ?? 16;
  const minW = o.minWidth ?? 3;
  const maxDepth = Math.min(d.maxDepth, o.maxDepth ?? d.maxDepth);
  const scale = d.total > 0 ? width / d.total : 0;
  const cells: Cell[] = [];
  // Per depth, the open merged cell by column.
  const open = new Map<string, Cell>();
  let currentX: number | undefined;
  let failureX: number | undefined;
  for (const f of d.frames) {
    if (f.depth > maxDepth) continue;
    const x0 = f.x * scale;
    const w = f.size * scale;
    const isCurrent = f.fid === o.current;
    if (isCurrent) currentX = x0;
    if (f.fid === d.failure) failureX = x0;
    if (w >= minW || isCurrent) {
      cells.push({
        x: x0, y: f.depth * rowH, w: Math.max(w, 1), h: rowH - 1, depth: f.depth, fid: f.fid, count: 1,
        status: f.status, current: isCurrent, label: shortName(f.fid), title: f.title,
      });
      continue;
    }
    const col = Math.floor(x0 / minW);
    const key = `${f.depth}:${col}`;
    const c = open.get(key);
    if (c) {
      c.count++;
      c.w = Math.max(c.w, x0 + Math.max(w, 1) - c.x);
      if (rank[f.status] > rank[c.status]) {
        c.status = f.status;
        c.fid = f.fid;
      }
      continue;
    }
    const cell: Cell = {
      x: x0, y: f.depth * rowH, w: Math.max(w, 1), h: rowH - 1, depth: f.depth, fid: f.fid, count: 1,
      status: f.status, current: false, label: '', title: f.title,
    };
    open.set(key, cell);
    cells.push(cell);
  }
  for (const c of cells) {
    if (c.count > 1) c.title = `${c.count} frames at depth ${c.depth}; click for ${c.fid}`;
  }
  return { width, height: (maxDepth + 1) * rowH, cells, currentX, failureX, total: d.total, shown: d.frames.length };
}

function num(v: number): string {
  return (Math.round(v * 10) / 10).toString();
}

/** The chart as SVG: cells coloured by status, the failure and the inspected frame marked. */
export function timelineSvg(l: Layout): string {
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${l.width}" height="${l.height + 4}" viewBox="0 0 ${l.width} ${l.height + 4}" role="img" aria-label="frames over time">`);
  for (const c of l.cells) {
    const cls = ['cell', c.status, c.current ? 'current' : '', c.count > 1 ? 'merged' : ''].filter((s) => s).join(' ');
    parts.push(`<g class="${cls}" data-fid="${escapeHtml(c.fid)}"><title>${escapeHtml(c.title)}</title>` +
      `<rect x="${num(c.x)}" y="${num(c.y)}" width="${num(c.w)}" height="${num(c.h)}"></rect>`);
    // A label where it fits (about 6.5 pixels a character).
    const chars = Math.floor((c.w - 4) / 6.5);
    if (c.label && chars >= 3) {
      const text = c.label.length > chars ? c.label.slice(0, chars - 1) + '…' : c.label;
      parts.push(`<text x="${num(c.x + 2)}" y="${num(c.y + c.h - 4)}">${escapeHtml(text)}</text>`);
    }
    parts.push('</g>');
  }
  if (l.failureX !== undefined) {
    parts.push(`<line class="failure-mark" x1="${num(l.failureX)}" y1="0" x2="${num(l.failureX)}" y2="${l.height + 4}"><title>the failure</title></line>`);
  }
  if (l.currentX !== undefined) {
    parts.push(`<line class="current-mark" x1="${num(l.currentX)}" y1="0" x2="${num(l.currentX)}" y2="${l.height + 4}"><title>the inspected frame</title></line>`);
  }
  parts.push('</svg>');
  return parts.join('');
}
