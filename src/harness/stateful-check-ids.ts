// The ids of the stateful checks (stateful/checks.ts), in a leaf of their own so that the list of
// every check id (checks.ts) names them without importing the checks that compare answers.

/** Checks that compare the answers of a sequence's steps with each other; level `stateful`. */
export const STATEFUL_CHECK_IDS = [
  "stateful.created-available",
  "stateful.id-exact",
  "stateful.read-back",
  "stateful.create-keeps-stored",
  "stateful.update-visible",
  "stateful.replace-whole",
  "stateful.patch-keeps-unsent",
  "stateful.delete-effective",
  "stateful.delete-spares-others",
  "stateful.absent-untouched",
  "stateful.id-reusable",
  "stateful.list-contains",
  "stateful.list-complete",
  "stateful.list-after-delete",
  "stateful.list-limit",
  "stateful.list-unique",
  "stateful.link-available",
] as const;
export type StatefulCheckId = (typeof STATEFUL_CHECK_IDS)[number];
