// A function's results kept per argument, for values that are few and asked for on hot paths
// (endpoints' URLs and addresses, signing keys, media types). The map is emptied when it reaches
// `max` entries, so an unexpected variety costs recomputation, never unbounded memory.
export interface Memo<K, V> {
  (key: K): V;
  /** Forgets every kept result (what they depend on changed). */
  clear(): void;
}

export function memo<K, V>(fn: (key: K) => V, max = 1000): Memo<K, V> {
  const kept = new Map<K, V>();
  const get = ((key: K): V => {
    if (kept.has(key)) return kept.get(key) as V;
    const value = fn(key);
    if (kept.size >= max) kept.clear();
    kept.set(key, value);
    return value;
  }) as Memo<K, V>;
  get.clear = () => kept.clear();
  return get;
}
