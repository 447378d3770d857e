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
//	kwire version                       kwire and its embedded Kafka releases (also --version)
//	kwire log DIR                       log segments and KRaft snapshots, metadata decoded
//	kwire call --bootstrap H:P DescribeQuorum
//	                                    one request to a live node, response decoded
//	kwire proxy --listen A --upstream B a pass-through proxy printing each exchange
//	kwire pcap FILE                     the Kafka conversations of a capture
//	kwire site --out DIR; kwire serve   the protocol atlas as a static site, or served
//	kwire help CMD; kwire completion SH kwire CMD --help; tab completion for bash, zsh, fish
//
// Global flags: --kafka R picks an embedded release ("4.4", "3.9.1"; the
// newest by default), --specs PATH loads specs from a directory, a .jar/.zip
// or one file instead, --color auto|always|never (auto: colour only when
// stdout is a terminal and NO_COLOR is unset or empty).
//
// Exit codes:
//
//	0  done
//	1  findings: what was named does not exist in the chosen specs (unknown
//	   API or record type, a version it does not have), the bytes do not
//	   decode (the partial tree is still printed), JSON that does not fit
//	   the message (malformed, an unknown field, a wrong type, a value out
//	   of range; the error names the JSON path), the spec files have
//	   errors that keep the named message (or, for list, any message) from
//	   loading, a capture with problems, or a file cannot be read
//	2  usage: unknown command or flag, a malformed flag value (--hex that is
//	   not hex, --header-json that is not JSON, an unknown --kafka
//	   release), flags that contradict each other or miss a companion
//	   (--response without --api and --version, encode without --version)
//
// The command only parses flags and prints; the work is done by packages
// spec, codec, instance, render and the others (report writes the lines of
// pcap and proxy, spec those of compat, diff and history).
package main

import (
	"os"

	"golang.org/x/term"
)

func main() {
	width, _, _ := term.GetSize(int(os.Stdout.Fd()))
	os.Exit(run(os.Args[1:], &env{
		stdin:    os.Stdin,
		stdout:   os.Stdout,
		stderr:   os.Stderr,
		getenv:   os.Getenv,
		terminal: term.IsTerminal(int(os.Stdout.Fd())),
		width:    width,
	}))
}
