// The styles the adi webviews share: the editor's theme through VS Code's
// CSS variables, no remote fonts or images.

export const webviewStyle = `
body { color: var(--vscode-foreground); background: var(--vscode-sideBar-background, var(--vscode-editor-background)); font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); padding: 0 6px; }
.empty, .note { color: var(--vscode-descriptionForeground); }
.error { color: var(--vscode-errorForeground); }
pre { white-space: pre-wrap; font-family: var(--vscode-editor-font-family); }
`;
