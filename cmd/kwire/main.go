// Command kwire makes the Apache Kafka wire protocol visible: it lists the
// APIs and record types of a Kafka release, shows the smallest legal
// instance of any message byte by byte, decodes bytes of requests,
// responses and records into the same annotated tree, and encodes messages
// given as JSON in the format of Kafka's generated JsonConverters (which
// show and decode print with --format kafka).
//
//	kwire list                          every API and record type of the newest embedded release
//	kwire show Vote --version 2         smallest VoteRequest and VoteResponse v2
//	kwire decode --hex '0000004f 0034…' a framed request
//	kwire encode Vote --version 2 body.json
//	                                    a framed VoteRequest v2 from JSON in the
//	                                    format of Kafka's JsonConverters, as hex
//	kwire decode --format kafka -       the body back as that JSON
//	kwire version                       kwire and its embedded Kafka releases (also
//	                                    --version, before any command)
//	kwire log DIR                       log segments and KRaft snapshots, metadata decoded
//	kwire call --bootstrap H:P DescribeQuorum
//	                                    one request to a live node, response decoded
//	kwire proxy --listen A --upstream B a pass-through proxy printing each exchange
//	kwire pcap FILE                     the Kafka conversations of a capture
//	kwire site --out DIR; kwire serve   the protocol atlas as a static site, or served
//	kwire help CMD; kwire completion SH kwire CMD --help; tab completion for bash, zsh, fish
//
// Global flags: --kafka R picks an embedded release ("3.6" for 3.6.2, "3.9.1"; the
// newest by default), --specs PATH loads specs from a directory, a .jar/.zip
// or one file instead, --color auto|always|never (auto: colour only when
// stdout is a terminal and NO_COLOR is unset or empty).
//
// Exit status (the rule of package internal/cli): 0 done; 1 the command
// ran and found something (bad input files or bytes, a missing path, an
// unknown name or version, a peer that does not resolve or answer,
// problems in the data); 2 the command line is malformed or contradictory.
// Errors are printed once, on standard error.
//
// The command only parses flags and prints; the work is done by packages
// spec, codec, instance, render and the others (report writes the lines of
// pcap and proxy, spec those of compat, diff and history).
package main

import (
	"os"
	"strconv"
	"strings"

	"golang.org/x/term"
)

func main() {
	width, _, _ := term.GetSize(int(os.Stdout.Fd()))
	width = terminalWidth(width, os.Getenv)
	os.Exit(run(os.Args[1:], &env{
		stdin:    os.Stdin,
		stdout:   os.Stdout,
		stderr:   os.Stderr,
		getenv:   os.Getenv,
		terminal: term.IsTerminal(int(os.Stdout.Fd())),
		width:    width,
		// (The commands that hold an input's trees set a soft heap
		// limit: cliMemoryLimit.)
		limitMemory: true,
	}))
}

// terminalWidth is the width of the terminal on standard output: the one
// it reports, else (a pseudo-terminal of 0 columns, as script(1) opens
// without a real terminal) $COLUMNS when that is a positive number; 0 when
// neither says.
func terminalWidth(reported int, getenv func(string) string) int {
	if reported > 0 {
		return reported
	}
	if n, err := strconv.Atoi(strings.TrimSpace(getenv("COLUMNS"))); err == nil && n > 0 {
		return n
	}
	return 0
}
