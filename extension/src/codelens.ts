// "debug with adi" and "diagnose with adi" above each test function.
import * as vscode from 'vscode';
import { findTests, isTestFile } from './testfuncs';

export class TestCodeLens implements vscode.CodeLensProvider {
  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    if (!isTestFile(doc.uri.fsPath)) {
      return [];
    }
    const out: vscode.CodeLens[] = [];
    for (const t of findTests(doc.getText())) {
      const range = new vscode.Range(t.line, 0, t.line, 0);
      const arg = { uri: doc.uri, test: t.name };
      out.push(
        new vscode.CodeLens(range, { title: 'debug with adi', command: 'adi.debugTest', arguments: [arg], tooltip: `Record ${t.name} and debug the recording` }),
        new vscode.CodeLens(range, { title: 'diagnose with adi', command: 'adi.diagnoseTest', arguments: [arg], tooltip: `Record ${t.name} and find the root cause of its failure` }),
      );
    }
    return out;
  }
}
