// A route's hooks of one kind with one more at the end (for `onRoute`, which adds hooks to the
// routes that need them only: reads do not pay for what only writes use).
export const withHook = <T>(existing: T | T[] | undefined, hook: T): T[] => [...(existing === undefined ? [] : Array.isArray(existing) ? existing : [existing]), hook];
