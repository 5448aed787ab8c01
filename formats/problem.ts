// Every REST error is RFC 7807 application/problem+json, built here and nowhere else.
import { ApiError } from '../engine/errors.ts';

export const PROBLEM = 'application/problem+json; charset=utf-8';

export interface Problem {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

export function problem(err: ApiError): Problem {
  const body: Record<string, unknown> = { type: err.type, title: err.title, status: err.status, detail: err.detail };
  if (err.violations?.length) body.violations = err.violations.map((v) => ({ propertyPath: v.propertyPath, message: v.message, code: v.code, ...(v.extensions ? { extensions: v.extensions } : {}) }));
  if (err.extra) Object.assign(body, err.extra);
  return { status: err.status, body, headers: { 'content-type': PROBLEM, ...(err.headers ?? {}) } };
}
