// The debugger: `adi dap` as the debug adapter of type "adi", its binary
// found as binary.ts says, its environment from the settings and the
// secret API key; and the configuration provider that fills defaults.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { findAdi, findGo, INSTALL_COMMAND, Lookup, LookupEnv } from './binary';
import { absolutize, adapterEnv, AdapterEnv, LaunchConfig, LimitKey, LIMIT_KEYS, resolveLaunch } from './config';

export const SECRET_KEY = 'adi.llm.apiKey';

function isExecutable(p: string): boolean {
  try {
    const st = fs.statSync(p);
    if (!st.isFile()) {
      return false;
    }
    if (process.platform !== 'win32') {
      fs.accessSync(p, fs.constants.X_OK);
    }
    return true;
  } catch {
    return false;
  }
}

export function lookupEnv(): LookupEnv {
  return {
    setting: (vscode.workspace.getConfiguration('adi').get<string>('path', '') ?? '')
      .replace(/\$\{workspaceFolder\}/g, vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? '${workspaceFolder}'),
    env: process.env,
    home: os.homedir(),
    platform: process.platform,
    isExecutable,
  };
}

/** The go command, or undefined. */
export function goCommand(): string | undefined {
  const g = findGo(lookupEnv());
  return g.found ? g.path : undefined;
}

/** The adapter's environment and the panel's mode line, from the settings and the secret. */
export async function currentAdapterEnv(secrets: vscode.SecretStorage): Promise<AdapterEnv> {
  const c = vscode.workspace.getConfiguration('adi');
  return adapterEnv({
    model: c.get<string>('llm.model', '') ?? '',
    baseUrl: c.get<string>('llm.baseUrl', '') ?? '',
    apiKey: await secrets.get(SECRET_KEY),
  });
}

/**
 * Says what is missing and how to fix it: the binary (install with go
 * install, or set adi.path) or the Go toolchain.
 */
export async function explainMissing(l: Lookup & { found: false }): Promise<void> {
  const go = findGo(lookupEnv());
  const setPath = 'Set adi.path';
  if (!go.found) {
    const getGo = 'Get Go';
    const pick = await vscode.window.showErrorMessage(
      'adi needs the Go toolchain, and `go` was not found (looked on PATH, in $GOROOT/bin and /usr/local/go/bin). Install Go from https://go.dev/dl/, then run: '
      + INSTALL_COMMAND + ' — or set adi.path to an adi binary.', getGo, setPath);
    if (pick === getGo) {
      await vscode.env.openExternal(vscode.Uri.parse('https://go.dev/dl/'));
    } else if (pick === setPath) {
      await vscode.commands.executeCommand('workbench.action.openSettings', 'adi.path');
    }
    return;
  }
  const install = 'Install with go install';
  const msg = l.error ?? `adi: the adi binary was not found (looked in ${l.searched.join(', ')}). Install it with \`${INSTALL_COMMAND}\`, or set adi.path.`;
  const pick = await vscode.window.showErrorMessage(msg, install, setPath);
  if (pick === install) {
    installAdi(go.path);
  } else if (pick === setPath) {
    await vscode.commands.executeCommand('workbench.action.openSettings', 'adi.path');
  }
}

/**
 * Runs INSTALL_COMMAND, verbatim, in a terminal and says so. When the go
 * found is not on PATH, the terminal's PATH gets its directory first.
 */
export function installAdi(goPath?: string): void {
  const go = goPath ?? goCommand();
  if (!go) {
    void explainMissing({ found: false, searched: [] });
    return;
  }
  const sep = process.platform === 'win32' ? ';' : ':';
  const hostPath = process.env.PATH ?? '';
  const env = hostPath.split(sep).includes(path.dirname(go)) ? undefined : { PATH: path.dirname(go) + sep + hostPath };
  const t = vscode.window.createTerminal({ name: 'adi: go install', env });
  t.show();
  t.sendText(INSTALL_COMMAND);
  void vscode.window.showInformationMessage(`adi: running \`${INSTALL_COMMAND}\` in the terminal "adi: go install"; start debugging again when it has finished.`);
}

export class AdiDescriptorFactory implements vscode.DebugAdapterDescriptorFactory {
  constructor(private readonly secrets: vscode.SecretStorage, private readonly log: vscode.OutputChannel) {}

  async createDebugAdapterDescriptor(session: vscode.DebugSession): Promise<vscode.DebugAdapterDescriptor> {
    const port = session.configuration.debugServer;
    if (typeof port === 'number' && port > 0) {
      // An adi dap --listen started by hand (README: "debugServer").
      this.log.appendLine(`connecting to adi dap at 127.0.0.1:${port} (debugServer)`);
      return new vscode.DebugAdapterServer(port, '127.0.0.1');
    }
    const l = findAdi(lookupEnv());
    if (!l.found) {
      void explainMissing(l);
      throw new Error(l.error ?? `the adi binary was not found: install it with ${INSTALL_COMMAND} or set adi.path`);
    }
    const a = await currentAdapterEnv(this.secrets);
    const level = vscode.workspace.getConfiguration('adi').get<string>('dap.logLevel', 'warn') ?? 'warn';
    // The key is in a.env only; the log line names the variables, not their values.
    this.log.appendLine(`starting ${l.path} dap --log-level ${level} (found via ${l.source}; ${a.mode})`);
    const env = { ...a.env };
    const go = findGo(lookupEnv());
    const sep = process.platform === 'win32' ? ';' : ':';
    const hostPath = process.env.PATH ?? '';
    if (go.found && !hostPath.split(sep).includes(path.dirname(go.path))) {
      // adi runs `go test` and `go run`: it must find the toolchain found here.
      env.PATH = path.dirname(go.path) + sep + hostPath;
    }
    return new vscode.DebugAdapterExecutable(l.path, ['dap', '--log-level', level], { env });
  }
}

export class AdiConfigurationProvider implements vscode.DebugConfigurationProvider {
  provideDebugConfigurations(): vscode.DebugConfiguration[] {
    return [{ type: 'adi', request: 'launch', name: 'adi: debug test', mode: 'test', program: '${fileDirname}', testRun: '' }];
  }

  resolveDebugConfiguration(_folder: vscode.WorkspaceFolder | undefined, config: vscode.DebugConfiguration): vscode.DebugConfiguration | undefined {
    const ed = vscode.window.activeTextEditor;
    const limits: Partial<Record<LimitKey, number>> = {};
    const c = vscode.workspace.getConfiguration('adi.limits');
    for (const k of LIMIT_KEYS) {
      limits[k] = c.get<number>(k, 0) ?? 0;
    }
    const r = resolveLaunch(config, {
      file: ed?.document.uri.scheme === 'file' ? ed.document.uri.fsPath : undefined,
      text: ed?.document.getText(),
      line: ed?.selection.active.line,
      limits,
      recorder: vscode.workspace.getConfiguration('adi').get<string>('recorder', 'auto'),
    });
    if ('error' in r) {
      void vscode.window.showErrorMessage(r.error);
      return undefined;
    }
    if (typeof r.config.debugServer !== 'number') {
      // Said here, the launch is abandoned quietly: an error thrown by the
      // descriptor factory would add VS Code's own modal dialog.
      const l = findAdi(lookupEnv());
      if (!l.found) {
        void explainMissing(l);
        return undefined;
      }
    }
    return r.config as vscode.DebugConfiguration;
  }

  resolveDebugConfigurationWithSubstitutedVariables(folder: vscode.WorkspaceFolder | undefined, config: vscode.DebugConfiguration): vscode.DebugConfiguration {
    const f = (folder ?? vscode.workspace.workspaceFolders?.[0])?.uri.fsPath;
    return absolutize(config as unknown as LaunchConfig, f) as unknown as vscode.DebugConfiguration;
  }
}
