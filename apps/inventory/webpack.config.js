module.exports = require('../../tools/build/webpack-node-app')({ outDir: 'dist/apps/inventory', projectDir: __dirname });
