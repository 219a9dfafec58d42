module.exports = { displayName: 'infra', preset: '../../jest.preset.js', rootDir: __dirname };
