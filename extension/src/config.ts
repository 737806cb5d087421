// Launch configurations and the adapter's environment, from the editor's
// state and the settings. No vscode here: the editor's state is passed in.
import * as path from 'path';
import { isTestFile, runPattern, testAt } from './testfuncs';

/** The limits of the launch arguments (adapter/messages.go LaunchArgs). */
export const LIMIT_KEYS = ['maxFrames', 'maxSteps', 'loopFirst', 'loopLast', 'maxString', 'maxElems', 'maxDepth', 'timeout', 'execTimeout'] as const;
export type LimitKey = typeof LIMIT_KEYS[number];

export interface LaunchConfig {
  type: string;
  request: string;
  name: string;
  mode?: string;
  program?: string;
  testRun?: string;
  args?: string[];
  buildFlags?: string[];
  env?: Record<string, string>;
  cwd?: string;
  [key: string]: unknown;
}

export interface EditorState {
  /** The active editor's file, if any. */
  file?: string;
  /** Its text (for the test under the cursor). */
  text?: string;
  /** The cursor's 0-based line. */
  line?: number;
  /** The adi.limits.* settings (0: unset). */
  limits: Partial<Record<LimitKey, number>>;
  /** The adi.recorder setting ("auto" or unset: the adapter's default). */
  recorder?: string;
}

export type Resolved = { config: LaunchConfig } | { error: string };

/**
 * Fills a launch configuration's defaults. An empty one (F5 with no
 * launch.json) becomes a session for the active file: in a _test.go file
 * mode test of its package, running the test under the cursor; in another
 * .go file mode run of its package. The adi.limits.* settings fill the
 * limits the configuration does not set.
 */
export function resolveLaunch(input: Partial<LaunchConfig>, ed: EditorState): Resolved {
  const c: LaunchConfig = { ...(input as LaunchConfig) };
  const empty = !c.type && !c.request && !c.name;
  if (empty) {
    if (!ed.file || !ed.file.endsWith('.go')) {
      return { error: 'adi: open a Go file (a _test.go file to debug a test) or add an "adi" configuration to launch.json, then start debugging again' };
    }
    c.type = 'adi';
    c.request = 'launch';
    c.program = path.dirname(ed.file);
    if (isTestFile(ed.file)) {
      c.mode = 'test';
      const t = ed.text !== undefined && ed.line !== undefined ? testAt(ed.text, ed.line) : undefined;
      if (t) {
        c.testRun = runPattern(t);
        c.name = `adi: debug ${t}`;
      } else {
        c.name = `adi: debug tests of ${path.basename(c.program)}`;
      }
    } else {
      c.mode = 'run';
      c.name = `adi: debug ${path.basename(c.program)}`;
    }
  }
  c.type = c.type || 'adi';
  c.request = c.request || 'launch';
  c.name = c.name || 'adi';
  c.mode = c.mode || 'test';
  if (c.request !== 'launch') {
    return { error: `adi: request "${c.request}" is not supported: adi records the run itself, use "request": "launch"` };
  }
  if (!['test', 'run', 'exec'].includes(c.mode)) {
    return { error: `adi: unknown mode "${c.mode}": use "test", "run" or "exec"` };
  }
  if (!c.program) {
    if (ed.file && ed.file.endsWith('.go')) {
      c.program = path.dirname(ed.file);
    } else {
      return { error: 'adi: the launch configuration needs "program": the package directory (mode test or run) or the binary (mode exec)' };
    }
  }
  for (const k of LIMIT_KEYS) {
    const v = ed.limits[k];
    if (c[k] === undefined && typeof v === 'number' && v > 0) {
      c[k] = v;
    }
  }
  if (c.recorder === undefined && ed.recorder && ed.recorder !== 'auto') {
    c.recorder = ed.recorder;
  }
  return { config: c };
}

/**
 * Makes a relative program and cwd relative to the workspace folder (adi
 * dap would take them relative to its own working directory). For a
 * configuration whose variables (${workspaceFolder}…) are substituted.
 */
export function absolutize(c: LaunchConfig, folder: string | undefined): LaunchConfig {
  if (!folder) {
    return c;
  }
  const out = { ...c };
  if (out.cwd && !path.isAbsolute(out.cwd)) {
    out.cwd = path.join(folder, out.cwd);
  }
  if (!out.cwd && out.program && !path.isAbsolute(out.program)) {
    out.program = path.join(folder, out.program);
  }
  return out;
}

/** The configuration of "debug with adi" / "diagnose with adi" for one test. */
export function testConfig(file: string, test: string | undefined, diagnose: boolean): LaunchConfig {
  const dir = path.dirname(file);
  const c: LaunchConfig = {
    type: 'adi', request: 'launch', mode: 'test', program: dir,
    name: `adi: ${diagnose ? 'diagnose' : 'debug'} ${test ?? 'tests of ' + path.basename(dir)}`,
  };
  if (test) {
    c.testRun = runPattern(test);
  }
  return c;
}

export interface LlmSettings {
  model: string;
  baseUrl: string;
  /** From SecretStorage; undefined or "" when none. */
  apiKey?: string;
}

export interface AdapterEnv {
  /** The environment of the adi dap child (merged into the host's). */
  env: Record<string, string>;
  /** What the chat panel's #mode line says. */
  mode: string;
  /** Whether the LLM agent answers (else the offline diagnoser). */
  llm: boolean;
}

/**
 * The environment of `adi dap` (cmd/adi/dap.go, agent.ConfigFromEnv):
 * ADI_LLM_MODEL, ADI_LLM_BASE_URL and ADI_LLM_API_KEY. The settings are
 * authoritative: when they configure no model the variables are set empty
 * (an ADI_LLM_MODEL of the editor's environment does not apply), and a
 * model with neither a key nor a base URL falls back to the offline
 * diagnoser (adi dap would refuse to start). The key goes only in here.
 */
export function adapterEnv(s: LlmSettings): AdapterEnv {
  const model = s.model.trim();
  const baseUrl = s.baseUrl.trim();
  const key = (s.apiKey ?? '').trim();
  const env: Record<string, string> = { ADI_LLM_MODEL: '', ADI_LLM_BASE_URL: '', ADI_LLM_API_KEY: '', OPENAI_API_KEY: '' };
  if (model === '' || (key === '' && baseUrl === '')) {
    return { env, mode: key === '' ? 'offline diagnoser (no API key)' : 'offline diagnoser (no model: set adi.llm.model)', llm: false };
  }
  env.ADI_LLM_MODEL = model;
  env.ADI_LLM_BASE_URL = baseUrl;
  env.ADI_LLM_API_KEY = key;
  return { env, mode: baseUrl ? `${model} at ${safeUrl(baseUrl)}` : model, llm: true };
}

/** A URL without user information or query, for display. */
export function safeUrl(u: string): string {
  try {
    const x = new URL(u);
    x.username = '';
    x.password = '';
    x.search = '';
    x.hash = '';
    return x.toString().replace(/\/$/, '');
  } catch {
    return '(unparsable URL)';
  }
}

/** The directory holding go.mod at or above dir, or undefined. */
export function moduleRoot(dir: string, exists: (p: string) => boolean): string | undefined {
  let d = path.resolve(dir);
  for (;;) {
    if (exists(path.join(d, 'go.mod'))) {
      return d;
    }
    const up = path.dirname(d);
    if (up === d) {
      return undefined;
    }
    d = up;
  }
}

/**
 * The file a diagnosis location names, absolute: relative paths are
 * relative to the module root (else the package directory).
 */
export function locate(file: string, root: string | undefined, pkgDir: string | undefined): string {
  if (path.isAbsolute(file)) {
    return file;
  }
  return path.join(root ?? pkgDir ?? '.', file);
}

/**
 * The command that re-runs what a launch configuration recorded, without
 * adi: `go test -count=1 … -run …` (no cached result), `go run …`, or the
 * binary. go is the go command to use.
 */
export function rerunCommand(c: LaunchConfig, go: string): { file: string; args: string[]; cwd: string } {
  const program = c.program ?? '.';
  const abs = !path.isAbsolute(program) && c.cwd ? path.join(c.cwd, program) : program;
  const dir = c.cwd || (c.mode === 'exec' ? path.dirname(abs) : abs);
  const flags = c.buildFlags ?? [];
  switch (c.mode ?? 'test') {
    case 'run':
      return { file: go, args: ['run', ...flags, abs, ...(c.args ?? [])], cwd: dir };
    case 'exec':
      return { file: abs, args: [...(c.args ?? [])], cwd: dir };
  }
  const args = ['test', '-count=1', ...flags, abs];
  if (c.testRun) {
    args.push('-run', c.testRun);
  }
  if (c.args && c.args.length) {
    args.push('-args', ...c.args);
  }
  return { file: go, args, cwd: dir };
}
