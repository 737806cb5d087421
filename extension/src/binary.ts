// Where the adi binary and the go command come from. No vscode here: the
// file system and the environment are passed in, so that the lookup order
// is unit-tested with fakes.
import * as path from 'path';

/** The command the extension offers to run when adi is not found. */
export const INSTALL_COMMAND = 'go install github.com/adi-go/adi/cmd/adi@latest';

export interface LookupEnv {
  /** The adi.path setting ("" when unset). */
  setting: string;
  /** The extension host's environment. */
  env: Record<string, string | undefined>;
  /** The user's home directory. */
  home: string;
  /** process.platform. */
  platform: string;
  /** Whether an executable file exists at p. */
  isExecutable(p: string): boolean;
}

export type Lookup =
  | { found: true; path: string; source: string }
  | { found: false; searched: string[]; error?: string };

function exe(platform: string, name: string): string {
  return platform === 'win32' ? name + '.exe' : name;
}

function expandHome(p: string, home: string): string {
  if (p === '~') {
    return home;
  }
  if (p.startsWith('~/') || p.startsWith('~\\')) {
    return path.join(home, p.slice(2));
  }
  return p;
}

function pathDirs(e: LookupEnv): string[] {
  const v = e.env.PATH ?? e.env.Path ?? '';
  const sep = e.platform === 'win32' ? ';' : ':';
  return v.split(sep).filter((d) => d !== '');
}

/**
 * The adi binary: the adi.path setting; else adi on PATH; else in $GOBIN;
 * else in each $GOPATH's bin; else in ~/go/bin. A setting that names no
 * executable is an error (not a fallback): the user asked for that file.
 */
export function findAdi(e: LookupEnv): Lookup {
  const name = exe(e.platform, 'adi');
  const setting = e.setting.trim();
  if (setting !== '') {
    const p = expandHome(setting, e.home);
    if (e.isExecutable(p)) {
      return { found: true, path: p, source: 'the adi.path setting' };
    }
    return {
      found: false, searched: [p],
      error: `adi.path is set to "${setting}" but there is no executable file there: build it (npm run build:adi, or ${INSTALL_COMMAND}) or correct the setting`,
    };
  }
  const candidates: Array<[string, string]> = [];
  for (const d of pathDirs(e)) {
    candidates.push([path.join(d, name), 'PATH']);
  }
  if (e.env.GOBIN) {
    candidates.push([path.join(e.env.GOBIN, name), '$GOBIN']);
  }
  const sep = e.platform === 'win32' ? ';' : ':';
  for (const gp of (e.env.GOPATH ?? '').split(sep).filter((d) => d !== '')) {
    candidates.push([path.join(gp, 'bin', name), '$GOPATH/bin']);
  }
  if (e.home) {
    candidates.push([path.join(e.home, 'go', 'bin', name), '~/go/bin']);
  }
  const searched: string[] = [];
  for (const [p, source] of candidates) {
    if (searched.includes(p)) {
      continue;
    }
    searched.push(p);
    if (e.isExecutable(p)) {
      return { found: true, path: p, source };
    }
  }
  return { found: false, searched };
}

/**
 * The go command: on PATH, else in $GOROOT/bin, else in the usual install
 * locations (/usr/local/go/bin, ~/go/... is not a toolchain, ~/sdk is).
 */
export function findGo(e: LookupEnv): Lookup {
  const name = exe(e.platform, 'go');
  const candidates: string[] = pathDirs(e).map((d) => path.join(d, name));
  if (e.env.GOROOT) {
    candidates.push(path.join(e.env.GOROOT, 'bin', name));
  }
  if (e.platform === 'win32') {
    candidates.push('C:\\Program Files\\Go\\bin\\go.exe');
  } else {
    candidates.push('/usr/local/go/bin/go', '/opt/homebrew/bin/go', '/usr/lib/go/bin/go');
  }
  const searched: string[] = [];
  for (const p of candidates) {
    if (searched.includes(p)) {
      continue;
    }
    searched.push(p);
    if (e.isExecutable(p)) {
      return { found: true, path: p, source: 'go' };
    }
  }
  return { found: false, searched };
}
