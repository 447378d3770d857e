package hint_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/internal/cli"
	"github.com/kwire/kwire/internal/hint"
	"github.com/kwire/kwire/render"
	"github.com/kwire/kwire/spec"
)

func embedded(t testing.TB, r string) *spec.Set {
	t.Helper()
	s, err := spec.Embedded(r)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestPickVersion(t *testing.T) {
	s := embedded(t, "4.4.0")
	v2, v9 := int16(2), int16(9)
	vote := s.Message("VoteRequest")
	if v, err := hint.PickVersion(s, vote, nil); err != nil || v != 2 {
		t.Errorf("highest: %d %v", v, err)
	}
	if v, err := hint.PickVersion(s, vote, &v2); err != nil || v != 2 {
		t.Errorf("v2: %d %v", v, err)
	}
	_, err := hint.PickVersion(s, vote, &v9)
	if want := "VoteRequest has no version 9 in Kafka 4.4.0 (valid versions: 0-2)"; err == nil || err.Error() != want {
		t.Errorf("v9: %v, want %q", err, want)
	}
	// A version only the other embedded release has.
	produce := s.Message("ProduceRequest")
	_, err = hint.PickVersion(s, produce, &v2)
	if want := "ProduceRequest has no version 2 in Kafka 4.4.0 (valid versions: 3-13); Kafka 3.9.2 has versions 0-11: try --kafka 3.9"; err == nil || err.Error() != want {
		t.Errorf("Produce v2: %v,\nwant %q", err, want)
	}
}

func TestDecodeHintNamesFlags(t *testing.T) {
	s := embedded(t, "4.4.0")
	// A response without --response's --version: a usage error (exit 2).
	err := hint.Decode(s, &render.ClaimError{NeedAPI: true})
	var u cli.UsageError
	if !errors.As(err, &u) || err.Error() != "decoding a response needs --api NAME and --version N: a response does not say what it answers" {
		t.Errorf("claim: %v", err)
	}
	// A version error gets the release that has the version.
	ve := &codec.VersionError{Message: "ProduceRequest", Version: 2}
	if got := hint.Decode(s, ve).Error(); got != ve.Error()+"; Kafka 3.9.2 has versions 0-11: try --kafka 3.9" {
		t.Errorf("version: %s", got)
	}
	if hint.Decode(s, nil) != nil {
		t.Error("nil error")
	}
}

// A removed API names the release that still has it.
func ExampleRemoved() {
	s, err := spec.Embedded("4.4.0")
	if err != nil {
		panic(err)
	}
	fmt.Println(hint.Removed(s, s.Message("LeaderAndIsrRequest")))
	// Output:
	// (its spec says validVersions "none": the API was removed); Kafka 3.9.2 has versions 0-7: try --kafka 3.9
}

// A body without a field that is new in the version sent: the hint names
// the field and the version before it.
func TestMissingField(t *testing.T) {
	s := embedded(t, "4.4.0")
	produce := s.Message("ProduceRequest")
	body := []byte(`{"transactionalId":null,"acks":-1,"timeoutMs":1000,"topicData":[{"name":"t","partitionData":[]}]}`)
	_, err := codec.FromJSON(body, produce, 13)
	if got, want := hint.MissingField(produce, 13, err), "; topicId is in ProduceRequest v13 and later: give it, or send --version 12"; got != want {
		t.Errorf("Produce v13 without topicId (%v): %q, want %q", err, got, want)
	}
	// At v12 the same body encodes.
	if _, err := codec.FromJSON(body, produce, 12); err != nil {
		t.Errorf("v12: %v", err)
	}
	// A field as old as the message: no version lacks it.
	_, err = codec.FromJSON([]byte(`{"transactionalId":null,"timeoutMs":1000,"topicData":[]}`), produce, 12)
	if got := hint.MissingField(produce, 12, err); err == nil || got != "" {
		t.Errorf("acks missing (%v): %q, want no hint", err, got)
	}
	if got := hint.MissingField(produce, 12, errors.New("other")); got != "" {
		t.Errorf("other error: %q", got)
	}
}
