module.exports = require('../../tools/build/webpack-node-app')({ outDir: 'dist/apps/carts', projectDir: __dirname });
