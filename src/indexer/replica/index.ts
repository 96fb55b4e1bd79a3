// Indexer replicas over PostgreSQL: one writer elected by an advisory lock (replaced when it hangs), read-only API replicas.
export { createReplicaRoles } from './roles.ts'
