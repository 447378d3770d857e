// Package hint turns what the libraries report (a version a release does
// not have, a decode that failed for a reason the command line can fix)
// into the command-line hints kwire's commands print: which flag to add,
// which other embedded release has what was asked for. The libraries do
// not name flags; the commands that share these hints call this package.
package hint

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/internal/cli"
	"github.com/kwire/kwire/render"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/spec/bundle"
)

// PickVersion returns want when m has that version, or m's highest valid
// version when want is nil. The error names the valid versions and the
// embedded releases that have what was asked for.
func PickVersion(set *spec.Set, m *spec.Message, want *int16) (int16, error) {
	vv := m.ValidVersions
	switch {
	case want == nil && vv.Empty():
		return 0, fmt.Errorf("%s has no valid versions in %s %s", m.Name, render.SetName(set), Removed(set, m))
	case want == nil:
		return vv.Hi, nil
	case !vv.Contains(*want):
		return 0, fmt.Errorf("%s has no version %d in %s (valid versions: %s)%s", m.Name, *want, render.SetName(set), vv, Elsewhere(set, m.Name, want))
	}
	return *want, nil
}

// Removed explains a message without valid versions and names the
// embedded releases that have some: `(its spec says validVersions "none":
// the API was removed); Kafka 3.9.1 has versions 0-7: try --kafka 3.9`.
// show's error and history's text both end with it.
func Removed(set *spec.Set, m *spec.Message) string {
	return `(its spec says validVersions "none": the API was removed)` + Elsewhere(set, m.Name, nil)
}

// Elsewhere names the newest other embedded release where message name
// has version v (any version when v is nil), as a hint to append to an
// error: "; Kafka 3.9.2 has versions 0-7: try --kafka 3.9". Only that
// release is parsed (spec.NewestEmbeddedMessage).
func Elsewhere(set *spec.Set, name string, v *int16) string {
	other, m := spec.NewestEmbeddedMessage(name, v, set.Release)
	if m == nil {
		return ""
	}
	return fmt.Sprintf("; Kafka %s has versions %s: try --kafka %s", other.Release, m.ValidVersions, bundle.Flag(other.Release))
}

// MissingField says, for a JSON body of m at version v that lacks a field
// new in v (a *codec.JSONError with Missing), which version has no such
// field: "; topicId is in ProduceRequest v13 and later: give it, or send
// --version 12". "" for other errors, and for a field as old as m's
// oldest valid version.
func MissingField(m *spec.Message, v int16, err error) string {
	var je *codec.JSONError
	if !errors.As(err, &je) || je.Missing == nil {
		return ""
	}
	lo := je.Missing.Versions.Lo
	if lo == 0 || lo > v || !m.ValidVersions.Contains(lo-1) {
		return ""
	}
	name := je.Path[strings.LastIndexByte(je.Path, '.')+1:]
	return fmt.Sprintf("; %s is in %s v%d and later: give it, or send --version %d", name, m.Name, lo, lo-1)
}

// Decode says the errors of render.Decode in the command's terms:
// which flag is missing or disagrees with the bytes, which other embedded
// release has a version, how to decode a response.
func Decode(set *spec.Set, err error) error { return decode(set, err, flagTerms) }

// DecodeForm is Decode in the terms of the atlas's decode page, whose
// form has an API field, a version field, a response box and a release
// menu: "tick response", not "add --response".
func DecodeForm(set *spec.Set, err error) error { return decode(set, err, formTerms) }

// terms are the words a hint uses for what the user gives.
type terms struct {
	api, version, apiAndVersion string // "--api", "--version N" and both
	versionSays                 string // "--version" as what says a version
	asResponse                  string // how to decode a response
	addResponse, dropResponse   string
	release                     func(r string) string // "try --kafka 3.9"
	frames                      string                // where all frames are read
}

var flagTerms = terms{
	api: "--api", version: "--version N", apiAndVersion: "--api NAME and --version N", versionSays: "--version",
	asResponse:  "decode them with --api NAME --response --version N",
	addResponse: "add --response", dropResponse: "drop --response",
	release: func(r string) string { return "try --kafka " + bundle.Flag(r) },
	frames:  " (kwire pcap reads both directions of connections from a capture)",
}

var formTerms = terms{
	api: "the API field", version: "a version", apiAndVersion: "an API and a version", versionSays: "the version field",
	asResponse:  "decode them with an API, a version and the response box ticked",
	addResponse: "tick the response box", dropResponse: "untick the response box",
	release: func(r string) string { return "choose release " + r },
}

func decode(set *spec.Set, err error, t terms) error {
	var (
		se *render.StreamError
		ce *render.ClaimError
		me *render.MismatchError
		ne *render.NotRequestError
		ve *codec.VersionError
	)
	switch {
	case err == nil:
		return nil
	case errors.As(err, &se):
		return fmt.Errorf("frame %d (at 0x%04x of the input): %w%s", se.Frame, se.Offset, decode(set, se.Err, t), t.frames)
	case errors.As(err, &ce):
		switch {
		case ce.NotAPI:
			return cli.Usagef("%s is a %s type, not an API: %s", ce.Message.Name, ce.Message.Type, t.dropResponse)
		case ce.Message != nil && !render.IsAPI(ce.Message):
			return cli.Usagef("decoding %s needs %s: a %s type's bytes do not say their version", ce.Message.Name, t.version, ce.Message.Type)
		case ce.NeedAPI:
			return cli.Usagef("decoding a response needs %s: a response does not say what it answers", t.apiAndVersion)
		}
		return cli.Usagef("decoding a response needs %s: a response does not say what it answers", t.version)
	case errors.As(err, &me):
		if me.Claimed != nil {
			return fmt.Errorf("%w as %s says", err, t.api)
		}
		return fmt.Errorf("%w as %s says", err, t.versionSays)
	case errors.As(err, &ne):
		why, how := "", "these may be the bytes of a response: "+t.asResponse
		if ne.Why != "" {
			why = "; " + ne.Why
		}
		if ne.Claimed != nil {
			how = "if these bytes are a response, " + t.addResponse
		}
		if ne.Release != nil {
			how = fmt.Sprintf("%s; or %s", t.release(ne.Release.Release), how)
		}
		return fmt.Errorf("%w%s: %s", ne.Err, why, how)
	case errors.As(err, &ve):
		if other, m := spec.NewestEmbeddedMessage(ve.Message, &ve.Version, set.Release); m != nil {
			return fmt.Errorf("%w; Kafka %s has versions %s: %s", err, other.Release, m.ValidVersions, t.release(other.Release))
		}
		return err
	}
	return err
}
