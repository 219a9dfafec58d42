module.exports = require('../../tools/build/webpack-node-app')({ outDir: 'dist/apps/orders', projectDir: __dirname });
