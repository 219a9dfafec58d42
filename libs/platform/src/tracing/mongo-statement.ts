/**
 * `db.statement` of a MongoDB span: the command's shape, never a value — its name and collection,
 * the field names of its documents two levels deep (`{"find":"orders","filter":{"_id":"?"}}`), an
 * array as its length (`"updates":"[100]"`). The instrumentation's default walks the whole command,
 * every document of a bulk write, replacing each value with "?": 5–7 % of a service's CPU under
 * load (`npm run bench:checkout -- --cpu-prof`, ADR 0014 "Overhead"), spent on every command with
 * a parent span, sampled or not. This one reads at most the top two levels.
 */
export function mongoStatementShape(command: Record<string, unknown>): string {
  const shape: Record<string, unknown> = {};
  let first = true;
  for (const [key, value] of Object.entries(command)) {
    // the command's own key names its collection (find, update, insert, aggregate…)
    shape[key] = first && typeof value === 'string' ? value : shapeOf(value, 1);
    first = false;
  }
  return JSON.stringify(shape);
}

const MAX_DEPTH = 2;

function shapeOf(value: unknown, depth: number): unknown {
  if (Array.isArray(value)) return `[${value.length}]`;
  if (value === null || typeof value !== 'object') return '?';
  if (depth >= MAX_DEPTH || !isPlain(value)) return '{…}';
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = shapeOf(v, depth + 1);
  return out;
}

/** A plain document (not a Date, ObjectId, Binary, Long… whose fields are the driver's). */
function isPlain(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}
