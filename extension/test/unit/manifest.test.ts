// The manifest (the root package.json) against the adapter and the
// extension's code: the launch attributes are those adi dap accepts, the
// contract's commands are there, the tools and limits match.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { LIMIT_KEYS } from '../../src/config';
import { TOOLS } from '../../src/toolnames';

// out/unit/extension/test/unit → the repository root.
const root = path.resolve(__dirname, '..', '..', '..', '..', '..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

function launchArgsOfAdapter(): string[] {
  const src = fs.readFileSync(path.join(root, 'adapter', 'messages.go'), 'utf8');
  const m = /type LaunchArgs struct \{([\s\S]*?)\n\}/.exec(src);
  assert.ok(m, 'no LaunchArgs in adapter/messages.go');
  return [...m![1].matchAll(/json:"(\w+)/g)].map((x) => x[1]);
}

test('the debugger\'s launch attributes are exactly adi dap\'s launch arguments', () => {
  const dbg = manifest.contributes.debuggers.find((d: any) => d.type === 'adi');
  assert.ok(dbg, 'no debugger of type adi');
  const props = Object.keys(dbg.configurationAttributes.launch.properties).sort();
  assert.deepEqual(props, launchArgsOfAdapter().sort());
  for (const k of LIMIT_KEYS) {
    assert.ok(props.includes(k), `limit ${k} is not a launch argument`);
  }
  assert.deepEqual(dbg.configurationSnippets.map((s: any) => s.label), ['adi: debug test', 'adi: debug program']);
  assert.equal(dbg.initialConfigurations[0].type, 'adi');
});

test('the contract\'s commands are contributed with their titles', () => {
  const titles = new Map(manifest.contributes.commands.map((c: any) => [c.command, c.title]));
  const want: Record<string, string> = {
    'adi.openChat': 'adi: Open Chat',
    'adi.diagnoseTest': 'adi: Diagnose Test',
    'adi.debugTest': 'adi: Debug Test',
    'adi.setApiKey': 'adi: Set LLM API Key',
    'adi.buildAdapter': 'adi: Install the adi Binary',
  };
  for (const [id, title] of Object.entries(want)) {
    assert.equal(titles.get(id), title, id);
  }
});

test('settings: adi.path, the LLM endpoint and model, one per limit; never the key', () => {
  const props = manifest.contributes.configuration.properties;
  for (const k of ['adi.path', 'adi.llm.baseUrl', 'adi.llm.model', ...LIMIT_KEYS.map((k) => 'adi.limits.' + k)]) {
    assert.ok(props[k], `no setting ${k}`);
  }
  assert.ok(!Object.keys(props).some((k) => /key|secret|token/i.test(k)), 'a setting for a secret');
});

test('the language-model tools are the ones registered, and the chat participant is @adi', () => {
  assert.deepEqual(manifest.contributes.languageModelTools.map((t: any) => t.name).sort(), Object.keys(TOOLS).sort());
  for (const t of manifest.contributes.languageModelTools) {
    assert.equal(t.inputSchema.type, 'object', t.name);
    for (const r of t.inputSchema.required) {
      assert.ok(t.inputSchema.properties[r], `${t.name} requires ${r}, which it does not describe`);
    }
  }
  assert.deepEqual(manifest.contributes.chatParticipants.map((p: any) => [p.id, p.name]), [['adi.chat', 'adi']]);
});

test('main, activation and packaging', () => {
  assert.equal(manifest.main, './dist/extension.js');
  assert.ok(manifest.activationEvents.includes('onDebugResolve:adi'));
  assert.match(manifest.engines.vscode, /^\^1\.90\./);
  assert.equal(manifest.devDependencies['@types/vscode'], '1.90.0');
  for (const [name, v] of Object.entries(manifest.devDependencies)) {
    assert.match(String(v), /^\d+\.\d+\.\d+$/, `${name} is not pinned`);
  }
  const ignore = fs.readFileSync(path.join(root, '.vscodeignore'), 'utf8');
  assert.match(ignore, /^\*\*$/m);
  assert.match(ignore, /^!dist\/extension\.js$/m);
});
