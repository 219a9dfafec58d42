/**
 * Runs `fn` over `items` one key at a time in their order, the keys concurrently: what a batch of
 * one partition may do at once without reordering one aggregate's messages (each key is an
 * aggregate; its items keep the partition's order).
 */
export async function inKeyOrder<T>(
  items: readonly T[],
  keyOf: (item: T) => string,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  await Promise.all(
    [...groups.values()].map(async (group) => {
      for (const item of group) await fn(item);
    }),
  );
}
