// Package yamlflags reads a YAML file of command-line flags for kong
// (kwire proxy --config FILE): a mapping from flag names, as they are
// written on the command line without the dashes ("upstream",
// "tls-cert", "max-frame"; snake_case "tls_cert" too), to their values —
// a scalar, or a sequence for a flag that repeats. Flags given on the
// command line override the file's (kong applies a resolver only to the
// flags left unset).
//
// It decides the file's shape and its errors: a key that is no flag of the
// command, a nested mapping, or YAML that does not parse is an error
// naming FILE:LINE:COL. A value is handed to kong as its text, which kong
// parses as it parses the command line (a bad duration is kong's error
// naming the flag).
package yamlflags
