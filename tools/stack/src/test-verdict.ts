/**
 * Why `npm test` failed, or null when it passed. A task can fail with every test passing — a check
 * after Jest, such as the contracts' stale JSON Schema, or a typecheck — so the totals alone do not
 * say it and the closing line names it (two CI runs were read as green from "0 failed" before).
 */
export function runVerdict(nxStatus: number | null, failed: number, projects: number): string | null {
  if (failed > 0) return `${failed} test(s) or suite(s) failed`;
  if (projects === 0) return 'no project reported test results';
  if (nxStatus !== 0) return `a task failed with every test passing (nx exit ${nxStatus ?? 'signal'}): see "Failed tasks" above`;
  return null;
}
