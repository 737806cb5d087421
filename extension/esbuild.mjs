// Bundles the extension's TypeScript into dist/extension.js (the manifest's
// "main"). `vscode` is provided by the editor at run time.
import * as esbuild from 'esbuild';

await esbuild.build({
  entryPoints: ['extension/src/extension.ts'],
  bundle: true,
  outfile: 'dist/extension.js',
  external: ['vscode'],
  format: 'cjs',
  platform: 'node',
  target: 'node18',
  sourcemap: false,
  minify: false,
  logLevel: 'warning',
});
