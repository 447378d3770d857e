// Package lint checks Kafka message spec files as Kafka's generator would,
// and for legal constructs that are likely mistakes (kwire lint): Check
// returns the loader's problems (package spec reports everything the
// generator rejects that a loader must know, with file:line:col and the
// unambiguous fixes it found) together with lint's own rules, which read
// the JSON as written (keys given twice, "default": null, reversed
// ranges) and the loaded messages (unused commonStructs, fields never
// present, entity types, ...); docs/lint.md lists every rule. ApplyFixes
// and File.Fixed make the fixes of --fix and lint the result again.
//
// It decides which problems lint reports beyond the loader's and whether a
// fixed copy may replace a file. It leaves parsing, drafts and the
// loader's rules and fixes to package spec (spec.Parse), and reading files
// and writing copies to cmd/kwire.
package lint
