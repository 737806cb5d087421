// The language-model tools of the manifest's languageModelTools and the
// adi/* request each one sends (adapter/custom.go). No vscode here.
export const TOOLS: Record<string, string> = {
  adi_frame: 'adi/frame',
  adi_callTree: 'adi/callTree',
  adi_break: 'adi/break',
  adi_continue: 'adi/continue',
  adi_prev: 'adi/prev',
  adi_stepInto: 'adi/stepInto',
  adi_stepOut: 'adi/stepOut',
  adi_execute: 'adi/execute',
};
