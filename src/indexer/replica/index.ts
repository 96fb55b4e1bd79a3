// Indexer replicas over PostgreSQL: one writer elected by an advisory lock, read-only API replicas.
export { createReplicaRoles } from './roles.ts'
