// The least-recently-used order of a Map (insertion order: a used key is re-inserted), kept to
// the second: a key moves to the recent end at most once a second, not by a delete and an insert
// on every use of a hot key.
const TOUCH_MS = 1000;

/** Something an LRU map holds: when it last moved to the recent end (ms; -Infinity: never). */
export interface Touched {
  touched: number;
}

/** Moves `key` (holding `value`, or about to) to the recent end of `map` unless it moved within the last second. */
export function touch<K, V extends Touched>(map: Map<K, V>, key: K, value: V, now: number): void {
  if (now - value.touched < TOUCH_MS) return;
  map.delete(key);
  map.set(key, value);
  value.touched = now;
}
