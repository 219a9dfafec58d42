module.exports = { displayName: 'workspace', preset: '../../jest.preset.js', rootDir: __dirname, testTimeout: 120_000 };
