import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { test } from 'node:test';
import { findAdi, findGo, INSTALL_COMMAND, LookupEnv } from '../../src/binary';
import { absolutize, adapterEnv, locate, moduleRoot, rerunCommand, resolveLaunch, testConfig } from '../../src/config';

const testFile = `package search

import "testing"

func TestPrimes(t *testing.T) {
	_ = 1
}

func TestIndex(t *testing.T) {
	_ = 2
}
`;

test('F5 without launch.json in a _test.go file debugs the test under the cursor', () => {
  const r = resolveLaunch({}, { file: '/m/search/search_test.go', text: testFile, line: 9, limits: {} });
  assert.ok('config' in r);
  assert.deepEqual(r.config, { type: 'adi', request: 'launch', name: 'adi: debug TestIndex', mode: 'test', program: '/m/search', testRun: '^TestIndex$' });
});

test('F5 without launch.json outside a test debugs the package\'s tests or program', () => {
  const outside = resolveLaunch({}, { file: '/m/search/search_test.go', text: testFile, line: 1, limits: {} });
  assert.ok('config' in outside);
  assert.equal(outside.config.testRun, undefined);
  assert.equal(outside.config.mode, 'test');
  const prog = resolveLaunch({}, { file: '/m/cmd/tool/main.go', text: 'package main', line: 0, limits: {} });
  assert.ok('config' in prog);
  assert.equal(prog.config.mode, 'run');
  assert.equal(prog.config.program, '/m/cmd/tool');
});

test('F5 without launch.json and without a Go file says what to do', () => {
  const r = resolveLaunch({}, { file: '/m/README.md', limits: {} });
  assert.ok('error' in r && /open a Go file/.test(r.error));
  const none = resolveLaunch({}, { limits: {} });
  assert.ok('error' in none);
});

test('a launch.json configuration keeps its values; settings fill the unset limits', () => {
  const r = resolveLaunch({ type: 'adi', request: 'launch', name: 'x', program: '/p', maxFrames: 10 },
    { limits: { maxFrames: 99, maxSteps: 500, timeout: 0 } });
  assert.ok('config' in r);
  assert.equal(r.config.maxFrames, 10);
  assert.equal(r.config.maxSteps, 500);
  assert.equal(r.config.timeout, undefined);
  assert.equal(r.config.mode, 'test');
});

test('bad configurations are explained', () => {
  const attach = resolveLaunch({ type: 'adi', request: 'attach', name: 'x', program: '/p' }, { limits: {} });
  assert.ok('error' in attach && /use "request": "launch"/.test(attach.error));
  const mode = resolveLaunch({ type: 'adi', request: 'launch', name: 'x', program: '/p', mode: 'debug' }, { limits: {} });
  assert.ok('error' in mode && /unknown mode "debug"/.test(mode.error));
  const prog = resolveLaunch({ type: 'adi', request: 'launch', name: 'x' }, { limits: {} });
  assert.ok('error' in prog && /needs "program"/.test(prog.error));
});

test('testConfig runs exactly one test of the file\'s package', () => {
  assert.deepEqual(testConfig('/m/search/search_test.go', 'TestIndex', true),
    { type: 'adi', request: 'launch', mode: 'test', program: '/m/search', name: 'adi: diagnose TestIndex', testRun: '^TestIndex$' });
  assert.equal(testConfig('/m/search/search_test.go', undefined, false).testRun, undefined);
});

test('adapterEnv: no key is the offline diagnoser, and the editor\'s variables do not leak in', () => {
  const a = adapterEnv({ model: '', baseUrl: '', apiKey: undefined });
  assert.equal(a.mode, 'offline diagnoser (no API key)');
  assert.equal(a.llm, false);
  assert.deepEqual(a.env, { ADI_LLM_MODEL: '', ADI_LLM_BASE_URL: '', ADI_LLM_API_KEY: '', OPENAI_API_KEY: '' });
  const noKey = adapterEnv({ model: 'gpt-4.1', baseUrl: '', apiKey: '' });
  assert.equal(noKey.mode, 'offline diagnoser (no API key)');
  assert.equal(noKey.env.ADI_LLM_MODEL, '');
  const noModel = adapterEnv({ model: '', baseUrl: '', apiKey: 'sk-secret-123456' });
  assert.equal(noModel.llm, false);
  assert.ok(!JSON.stringify(noModel).includes('sk-secret'));
});

test('adapterEnv: a model with a key, or a local server without one', () => {
  const a = adapterEnv({ model: ' gpt-4.1 ', baseUrl: '', apiKey: 'sk-secret-123456' });
  assert.equal(a.llm, true);
  assert.equal(a.mode, 'gpt-4.1');
  assert.deepEqual(a.env, { ADI_LLM_MODEL: 'gpt-4.1', ADI_LLM_BASE_URL: '', ADI_LLM_API_KEY: 'sk-secret-123456', OPENAI_API_KEY: '' });
  const local = adapterEnv({ model: 'qwen', baseUrl: 'http://user:pw@localhost:11434/v1?token=x', apiKey: '' });
  assert.equal(local.llm, true);
  assert.equal(local.mode, 'qwen at http://localhost:11434/v1');
  assert.ok(!local.mode.includes('pw') && !local.mode.includes('token'));
});

function fakeEnv(files: string[], over: Partial<LookupEnv> = {}): LookupEnv {
  return {
    setting: '', env: { PATH: '/usr/bin:/bin', GOBIN: '/gobin', GOPATH: '/gp1:/gp2' }, home: '/home/u', platform: 'linux',
    isExecutable: (p) => files.includes(p), ...over,
  };
}

test('findAdi looks in adi.path, then PATH, $GOBIN, each $GOPATH/bin, ~/go/bin', () => {
  const all = ['/opt/adi', '/bin/adi', '/gobin/adi', '/gp2/bin/adi', '/home/u/go/bin/adi'];
  assert.deepEqual(findAdi(fakeEnv(all, { setting: '/opt/adi' })), { found: true, path: '/opt/adi', source: 'the adi.path setting' });
  assert.deepEqual(findAdi(fakeEnv(all)), { found: true, path: '/bin/adi', source: 'PATH' });
  assert.deepEqual(findAdi(fakeEnv(all.slice(2))), { found: true, path: '/gobin/adi', source: '$GOBIN' });
  assert.deepEqual(findAdi(fakeEnv(all.slice(3))), { found: true, path: '/gp2/bin/adi', source: '$GOPATH/bin' });
  assert.deepEqual(findAdi(fakeEnv(all.slice(4))), { found: true, path: '/home/u/go/bin/adi', source: '~/go/bin' });
  const none = findAdi(fakeEnv([]));
  assert.deepEqual(none, { found: false, searched: ['/usr/bin/adi', '/bin/adi', '/gobin/adi', '/gp1/bin/adi', '/gp2/bin/adi', '/home/u/go/bin/adi'] });
});

test('findAdi: an adi.path that names no executable is an error, not a fallback', () => {
  const r = findAdi(fakeEnv(['/bin/adi'], { setting: '~/bin/adi' }));
  assert.equal(r.found, false);
  assert.ok(!r.found && r.searched[0] === path.join('/home/u', 'bin/adi'));
  assert.ok(!r.found && r.error!.includes('adi.path is set to "~/bin/adi"') && r.error!.includes(INSTALL_COMMAND));
});

test('findAdi on Windows looks for adi.exe with ; separated lists', () => {
  const r = findAdi(fakeEnv([path.join('C:\\go', 'bin', 'adi.exe')], { platform: 'win32', env: { Path: 'C:\\a', GOPATH: 'C:\\go' } }));
  assert.ok(r.found && r.path.endsWith('adi.exe'));
});

test('findGo looks on PATH, then $GOROOT/bin and /usr/local/go/bin', () => {
  assert.deepEqual(findGo(fakeEnv(['/usr/local/go/bin/go'])), { found: true, path: '/usr/local/go/bin/go', source: 'go' });
  assert.equal((findGo(fakeEnv(['/bin/go', '/usr/local/go/bin/go'])) as any).path, '/bin/go');
  assert.equal((findGo(fakeEnv(['/goroot/bin/go'], { env: { PATH: '', GOROOT: '/goroot' } })) as any).path, '/goroot/bin/go');
  assert.equal(findGo(fakeEnv([])).found, false);
});

test('INSTALL_COMMAND is the documented go install', () => {
  assert.equal(INSTALL_COMMAND, 'go install github.com/adi-go/adi/cmd/adi@latest');
});

test('moduleRoot and locate resolve a diagnosis\'s relative paths', () => {
  const exists = (p: string) => p === '/m/go.mod';
  assert.equal(moduleRoot('/m/testdata/search', exists), '/m');
  assert.equal(moduleRoot('/elsewhere/x', exists), undefined);
  assert.equal(locate('testdata/search/search.go', '/m', '/m/testdata/search'), '/m/testdata/search/search.go');
  assert.equal(locate('/abs/x.go', '/m', undefined), '/abs/x.go');
  assert.equal(locate('x.go', undefined, '/pkg'), '/pkg/x.go');
});

test('rerunCommand runs the recorded test again, uncached', () => {
  assert.deepEqual(rerunCommand({ type: 'adi', request: 'launch', name: 'x', mode: 'test', program: '/m/search', testRun: '^TestIndex$', buildFlags: ['-tags', 'x'] }, '/go/bin/go'),
    { file: '/go/bin/go', args: ['test', '-count=1', '-tags', 'x', '/m/search', '-run', '^TestIndex$'], cwd: '/m/search' });
  assert.deepEqual(rerunCommand({ type: 'adi', request: 'launch', name: 'x', mode: 'run', program: 'cmd/t', cwd: '/m', args: ['a'] }, 'go'),
    { file: 'go', args: ['run', '/m/cmd/t', 'a'], cwd: '/m' });
  assert.deepEqual(rerunCommand({ type: 'adi', request: 'launch', name: 'x', mode: 'exec', program: '/b/prog', args: ['-v'] }, 'go'),
    { file: '/b/prog', args: ['-v'], cwd: '/b' });
});

test('the adi.recorder setting fills an unset recorder; auto leaves it to adi', () => {
  const base = { type: 'adi', request: 'launch', name: 'x', program: '/p' };
  const set = resolveLaunch(base, { limits: {}, recorder: 'delve' });
  assert.ok('config' in set && set.config.recorder === 'delve');
  const own = resolveLaunch({ ...base, recorder: 'instrument' }, { limits: {}, recorder: 'delve' });
  assert.ok('config' in own && own.config.recorder === 'instrument');
  const auto = resolveLaunch(base, { limits: {}, recorder: 'auto' });
  assert.ok('config' in auto && auto.config.recorder === undefined);
});

test('absolutize: relative program and cwd are relative to the workspace folder', () => {
  const base = { type: 'adi', request: 'launch', name: 'x' };
  assert.equal(absolutize({ ...base, program: '.' }, '/w').program, '/w');
  assert.equal(absolutize({ ...base, program: './pkg' }, '/w').program, '/w/pkg');
  // With a cwd, adi dap joins program to it: only the cwd is made absolute.
  const cwd = absolutize({ ...base, program: 'pkg', cwd: 'sub' }, '/w');
  assert.deepEqual([cwd.cwd, cwd.program], ['/w/sub', 'pkg']);
  const abs = absolutize({ ...base, program: '.', cwd: '/w' }, '/other');
  assert.deepEqual([abs.cwd, abs.program], ['/w', '.']);
  assert.equal(absolutize({ ...base, program: '/elsewhere' }, '/w').program, '/elsewhere');
  assert.equal(absolutize({ ...base, program: '.' }, undefined).program, '.');
});
