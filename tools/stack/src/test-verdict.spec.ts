import { runVerdict } from './test-verdict';

describe("npm test's verdict", () => {
  it('passes only when nx exited 0, nothing failed and some project reported', () => {
    expect(runVerdict(0, 0, 15)).toBeNull();
  });

  it('names a task that failed with every test passing (a check after Jest, a typecheck)', () => {
    expect(runVerdict(1, 0, 15)).toMatch(/a task failed with every test passing \(nx exit 1\).*Failed tasks/);
    expect(runVerdict(null, 0, 15)).toMatch(/nx exit signal/);
  });

  it('names failed tests, and a run where no project reported', () => {
    expect(runVerdict(1, 3, 15)).toBe('3 test(s) or suite(s) failed');
    expect(runVerdict(0, 0, 0)).toBe('no project reported test results');
  });
});
