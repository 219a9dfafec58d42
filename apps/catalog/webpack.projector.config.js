// The projector's own bundle (deployable apart from the API): dist/apps/catalog-projector/main.js
module.exports = require('../../tools/build/webpack-node-app')({
  outDir: 'dist/apps/catalog-projector',
  main: './src/projector.main.ts',
  projectDir: __dirname,
});
