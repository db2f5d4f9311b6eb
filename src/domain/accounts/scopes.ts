// Permission scopes (spec "Scopes and the tools they unlock"): <resource>:read|write, <resource>:*, and *.
import { z } from 'zod';

export const RESOURCES = ['subscribers', 'campaigns', 'groups', 'webhooks', 'automations', 'forms', 'account'] as const;
export type Resource = (typeof RESOURCES)[number];
export type Scope = `${Resource}:read` | `${Resource}:write`;

export const ALL_SCOPES: string[] = ['*', ...RESOURCES.flatMap((r) => [`${r}:read`, `${r}:write`, `${r}:*`])];

export const ScopeList = z
  .array(
    z.string().refine((s) => ALL_SCOPES.includes(s), { message: `Scope must be one of: ${ALL_SCOPES.join(', ')}` }),
  )
  .min(1, 'At least one scope is required');

/** True when a key holding `granted` may use something that needs `required`. */
export function permits(granted: readonly string[], required: Scope): boolean {
  const resource = required.split(':')[0];
  return granted.some((g) => g === '*' || g === required || g === `${resource}:*`);
}
