module.exports = require('../../tools/build/webpack-node-app')({ outDir: 'dist/apps/catalog', projectDir: __dirname });
