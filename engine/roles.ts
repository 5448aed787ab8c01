// Who may write: a descriptor's `writers` (by default admins and members; viewers only read).
import type { Principal } from './types.ts';
import { ApiError } from './errors.ts';
import type { ModelResource } from './model.ts';

export function assertWriter(p: Principal, r: ModelResource): void {
  if (r.writers.includes(p.role)) return;
  throw ApiError.forbidden(p.role === 'viewer' ? 'A viewer may only read.' : `A ${p.role} may not change ${r.name} resources.`);
}
