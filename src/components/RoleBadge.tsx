import type { Role } from '../engine/model'

/** A role badge (system / user / assistant / tool). */
export function RoleBadge({ role }: { role: Role }) {
  return <span className={`role role--${role}`}>{role}</span>
}
