// Package cli holds what the commands of kwire's command line share that is
// not about the Kafka protocol: the rule of the exit status, the check of
// address flags, the root --version, the help's flag formatting and the
// tab-completion command and predictors.
//
// The exit status of every command follows one rule:
//
//   - 0: the command did what was asked and found nothing wrong;
//   - 1: the command ran and found something: input files or bytes that are
//     bad, a path that is missing or unreadable, a name or version the
//     specs do not have, a peer that does not resolve or answer, problems
//     in the data (spec errors, records, a capture);
//   - 2: the command line itself is malformed or contradictory: an unknown
//     command or flag, a missing argument, a flag value that is invalid
//     on its face (an address that is not host:port or has a port out of
//     range, --hex that is not hex or holds no bytes, an unknown --kafka
//     release), or flags that contradict each other or miss a companion.
//
// A command returns a UsageError for the last kind and any other error for
// the second; ExitCode maps them.
package cli

import (
	"errors"
	"fmt"
	"net"
	"strconv"
)

// Rule is the exit-status rule in one paragraph, as kwire's help shows it.
const Rule = "Exit status: 0 done; 1 the command ran and found something (bad input files or bytes, " +
	"a missing or unreadable path, an unknown name or version, a peer that does not resolve or answer, " +
	"problems in the data); 2 the command line is malformed or contradictory (an unknown command or flag, " +
	"a missing argument, a flag value that is invalid on its face such as an address without a port or " +
	"--hex that is not hex, flags that contradict each other)."

// UsageError is an error of the command line itself: exit status 2.
type UsageError struct{ Err error }

// Error is the error's text, without a prefix.
func (u UsageError) Error() string { return u.Err.Error() }

// Unwrap returns the error.
func (u UsageError) Unwrap() error { return u.Err }

// Usagef is a UsageError of fmt.Errorf(format, args...).
func Usagef(format string, args ...any) error {
	return UsageError{fmt.Errorf(format, args...)}
}

// ExitCode is the exit status of a command that returned err: 0 for nil,
// 2 for a UsageError (anywhere in err's chain), else 1.
func ExitCode(err error) int {
	if err == nil {
		return 0
	}
	var u UsageError
	if errors.As(err, &u) {
		return 2
	}
	return 1
}

// HostPort checks the value of an address flag on its face: "host:port"
// with a port number in 1-65535 (0-65535 and an empty host, every
// interface, when listen is set). Hosts are not resolved. The error is a
// UsageError naming the flag: `--bootstrap "nohost": missing port in
// address (want host:port)`.
func HostPort(flag, addr string, listen bool) error {
	host, ps, err := net.SplitHostPort(addr)
	if err != nil {
		var ae *net.AddrError
		if errors.As(err, &ae) {
			err = errors.New(ae.Err)
		}
		return Usagef("--%s %q: %v (want host:port)", flag, addr, err)
	}
	lo := 1
	if listen {
		lo = 0
	}
	port, err := strconv.Atoi(ps)
	switch {
	case ps == "":
		return Usagef("--%s %q: no port (want host:port)", flag, addr)
	case err != nil:
		return Usagef("--%s %q: port %q is not a number", flag, addr, ps)
	case port < lo || port > 65535:
		return Usagef("--%s %q: port %d is out of range (%d-65535)", flag, addr, port, lo)
	case host == "" && !listen:
		return Usagef("--%s %q: no host (want host:port)", flag, addr)
	}
	return nil
}
