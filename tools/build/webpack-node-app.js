// Shared webpack config of a service bundle: one Node entry point, tsc compiler (keeps decorator
// metadata for NestJS), no minification, a generated package.json + lockfile of the production
// dependencies the bundle actually imports (used by the Dockerfiles' `npm ci --omit=dev`).
const { NxAppWebpackPlugin } = require('@nx/webpack/app-plugin');
const { join } = require('path');

/** @param {{ outDir: string, main?: string, projectDir: string }} opts */
module.exports = function nodeAppConfig({ outDir, main = './src/main.ts', projectDir }) {
  return {
    output: { path: join(__dirname, '../..', outDir), clean: true },
    devtool: 'source-map',
    context: projectDir,
    plugins: [
      new NxAppWebpackPlugin({
        target: 'node',
        compiler: 'tsc',
        main,
        tsConfig: './tsconfig.app.json',
        optimization: false,
        outputHashing: 'none',
        generatePackageJson: true,
        sourceMap: true,
      }),
    ],
  };
};
