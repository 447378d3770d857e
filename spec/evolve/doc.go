// Package evolve compares Kafka message specifications across versions and
// releases: Compat decides, for each message two sets both have, whether
// bytes written by one side's version are read the same by the other's
// (the rules are CompatRules, each finding an Impact); Diff groups those
// findings into one row per API or message; History tells, version by
// version, what each version of one message changed, with the spec's own
// comments (Notes) and, for embedded releases, which releases have each
// version. An internal topic's records are compared only where both sets
// carry that topic's specs (Uncarried): a release whose jars lack them is
// named, never taken for evidence that records were added or removed.
// Comparison, WriteHistoryText and their JSON forms are the
// reports that kwire compat, diff and history print and the atlas shows.
//
// It decides what counts as a change and how grave it is. It leaves
// reading, modelling and looking up specs, and which embedded releases
// have a version (spec.EmbeddedSpans), to package spec, and the command
// line (which sets to load, exit status) to cmd/kwire.
package evolve
