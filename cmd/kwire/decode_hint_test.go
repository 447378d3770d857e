package main

import (
	"encoding/hex"
	"fmt"
	"net/netip"
	"regexp"
	"strings"
	"testing"

	"github.com/google/gopacket/layers"

	"github.com/kwire/kwire/capture/capturetest"
	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/instance"
	"github.com/kwire/kwire/internal/hint"
	"github.com/kwire/kwire/render"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/spec/bundle"
)

// Every smallest response of every embedded release, at every version,
// decoded without --response: the error always names the --response form,
// and offers --kafka R only when the bytes decode whole under R. The
// responses whose bytes decode whole as a request (ProduceRequest v0 in
// the 3.x releases: correlation id 0 reads as api key 0 v0) are listed.
func TestDecodeResponsesWithoutResponseFlag(t *testing.T) {
	sets := map[string]*spec.Set{}
	for _, r := range bundle.Releases() {
		s, err := spec.Embedded(r)
		if err != nil {
			t.Fatal(err)
		}
		sets[bundle.Flag(r)] = s
	}
	kafkaHint := regexp.MustCompile(`try --kafka (\S+);`)
	decoded := map[string][]string{}
	hinted, n := 0, 0
	perRelease, hintTo := map[string]int{}, map[string]int{}
	for _, r := range bundle.Releases() {
		s := sets[bundle.Flag(r)]
		c := codec.New(s)
		for _, key := range s.APIKeys() {
			m := s.Response(key)
			if m == nil {
				continue
			}
			for v := m.ValidVersions.Lo; v <= m.ValidVersions.Hi; v++ {
				enc, err := c.Encode(m, v, nil, instance.Smallest(m, v))
				if err != nil {
					t.Fatalf("%s v%d: %v", m.Name, v, err)
				}
				n++
				perRelease[r]++
				_, err = render.Decode(s, render.Claim{}, enc.Bytes)
				if err == nil {
					decoded[r] = append(decoded[r], fmt.Sprintf("%s v%d", m.Name, v))
					continue
				}
				msg := hint.Decode(s, err).Error()
				if !strings.Contains(msg, "--api NAME --response --version N") {
					t.Errorf("%s %s v%d: no --response form: %s", r, m.Name, v, msg)
				}
				if k := kafkaHint.FindStringSubmatch(msg); k != nil {
					hinted++
					hintTo[r+" → "+k[1]]++
					other := sets[k[1]]
					if other == nil || other == s {
						t.Errorf("%s %s v%d: hint of release %q: %s", r, m.Name, v, k[1], msg)
					} else if _, err := render.Decode(other, render.Claim{}, enc.Bytes); err != nil {
						t.Errorf("%s %s v%d: the hint's --kafka %s does not decode the bytes (%v): %s", r, m.Name, v, k[1], err, msg)
					}
				}
			}
		}
	}
	// The smallest responses per release: 323 in Kafka 3.9.1, 309 in
	// 4.4.0 (their sum, 632, was this test's total with those two).
	wantN := map[string]int{"4.4.0": 309, "4.3.2": 302, "4.2.2": 300, "4.1.2": 292, "4.0.2": 279,
		"3.9.2": 323, "3.9.1": 323, "3.8.1": 301, "3.7.2": 291, "3.6.2": 278, "3.5.2": 277,
		"3.4.1": 271, "3.3.2": 267, "3.2.3": 258, "3.1.2": 252, "3.0.2": 250}
	if fmt.Sprint(perRelease) != fmt.Sprint(wantN) || n != 4573 {
		t.Errorf("%d responses, want 4573: %v, want %v", n, perRelease, wantN)
	}
	// Those that decode whole as requests: in the 3.x releases, a prefix
	// of this list, growing with BrokerRegistrationResponse's versions
	// (v0 to 3.3, v0-1 to 3.6, v0-3 to 3.8, v0-4 in 3.9); in 4.x none.
	want39 := strings.Split("OffsetCommitResponse v0, OffsetCommitResponse v1, OffsetCommitResponse v2, JoinGroupResponse v0, JoinGroupResponse v1, LeaveGroupResponse v3, InitProducerIdResponse v0, InitProducerIdResponse v1, SaslAuthenticateResponse v1, RenewDelegationTokenResponse v2, ExpireDelegationTokenResponse v2, OffsetDeleteResponse v0, BrokerRegistrationResponse v0, BrokerRegistrationResponse v1, BrokerRegistrationResponse v2, BrokerRegistrationResponse v3, BrokerRegistrationResponse v4", ", ")
	wantDecoded := map[string]int{"3.9.2": 17, "3.9.1": 17, "3.8.1": 16, "3.7.2": 16, "3.6.2": 14, "3.5.2": 14,
		"3.4.1": 14, "3.3.2": 13, "3.2.3": 13, "3.1.2": 13, "3.0.2": 13}
	for _, r := range bundle.Releases() {
		if got, want := strings.Join(decoded[r], ", "), strings.Join(want39[:wantDecoded[r]], ", "); got != want {
			t.Errorf("decode whole as requests in %s:\n%s\nwant\n%s", r, got, want)
		}
	}
	// The same 15 in each 4.x release (OffsetCommitResponse v0-v1 are
	// gone) get the hint to the newest release where they decode, 3.9
	// (3.9.2).
	wantHints := map[string]int{"4.4.0 → 3.9": 15, "4.3.2 → 3.9": 15, "4.2.2 → 3.9": 15, "4.1.2 → 3.9": 15, "4.0.2 → 3.9": 15}
	if fmt.Sprint(hintTo) != fmt.Sprint(wantHints) || hinted != 75 {
		t.Errorf("%d --kafka hints, want 75: %v, want %v", hinted, hintTo, wantHints)
	}
}

// A whole packet (Ethernet, IPv4, TCP) as Wireshark copies it: its TCP
// payload is decoded, with a note.
func TestDecodeWholePacket(t *testing.T) {
	pkt, err := capturetest.Packet(layers.LinkTypeEthernet, capturetest.Segment{Src: netip.MustParseAddrPort("10.0.0.1:50000"), Dst: netip.MustParseAddrPort("10.0.0.2:9092"), ACK: true, PSH: true, Payload: mustHex(t, voteRequestV2)})
	if err != nil {
		t.Fatal(err)
	}
	r := kwire(t, "decode", "--hex", hex.EncodeToString(pkt))
	if r.code != 0 || r.stderr != "kwire: note: a whole packet: Ethernet, IPv4 and TCP headers (10.0.0.1:50000 → 10.0.0.2:9092): the TCP payload starts at 0x0036; decoding the payload (offsets count from its start)\n" ||
		!strings.Contains(r.stdout, "VoteRequest v2, request header v2, 83 bytes on the wire") {
		t.Errorf("exit %d, stderr %q\n%s", r.code, r.stderr, r.stdout)
	}
}

// Response bytes given with --api but without --response: the hint alone
// (exit 1), no page of the bytes as the request their header seems to
// name.
func TestDecodeResponseWithAPIHintOnly(t *testing.T) {
	for _, args := range [][]string{
		{"decode", "--api", "Vote", "--hex", voteResponseV2},
		{"decode", "--api", "ApiVersions", "--hex", "0000001300000000000002000000000000000000000000"},
	} {
		r := kwire(t, args...)
		if r.code != 1 || r.stdout != "" || !strings.HasSuffix(r.stderr, ": if these bytes are a response, add --response\n") {
			t.Errorf("%q: exit %d, stdout:\n%s\nstderr %q", args, r.code, r.stdout, r.stderr)
		}
	}
}
