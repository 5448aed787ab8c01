import type { HookSet } from '../../engine/hooks.ts';

export const lineRules: HookSet = {};
