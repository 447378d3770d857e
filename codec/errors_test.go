package codec_test

import (
	"encoding/base64"
	"errors"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/wire"
)

// Every decoding and JSON error is reachable with errors.As, down to the
// error behind it.
func TestErrorsAs(t *testing.T) {
	s, err := kafka440()
	if err != nil {
		t.Fatal(err)
	}
	c := codec.New(s)

	// ProduceRequest v0 (not in Kafka 4.4): a *wire.Error at the version's
	// offset whose Err is the *VersionError.
	_, err = c.DecodeRequest(hexBytes(t, "0000000a 0000 0000 00000001 0000"))
	var we *wire.Error
	var ve *codec.VersionError
	if !errors.As(err, &we) || we.Offset != 6 || we.Path != "RequestHeader.RequestApiVersion" ||
		!errors.As(err, &ve) || ve.Message != "ProduceRequest" || ve.Version != 0 || ve.Valid.String() != "3-13" {
		t.Errorf("Produce v0: %v (wire %+v, version %+v)", err, we, ve)
	}
	if want := "RequestHeader.RequestApiVersion at 0x0006: ProduceRequest has no version 0 (valid versions: 3-13)"; err.Error() != want {
		t.Errorf("Produce v0: %q, want %q", err, want)
	}

	// A frame cut short: the *wire.Error of the field where the bytes ran
	// out (Need, Have) and the *FrameError of the size prefix.
	_, err = c.DecodeRequest(hexBytes(t, "0000004f 0034 0002 00000000 0000 00 01 00000000 02 01 02 0000"))
	var fe *codec.FrameError
	if !errors.As(err, &we) || we.Offset != 0x17 || we.Need != 4 || we.Have != 2 || we.Path != "VoteRequest.Topics[0].Partitions[0].PartitionIndex" ||
		!errors.As(err, &fe) || fe.Size != 79 || fe.Have != 21 {
		t.Errorf("cut frame: %v (wire %+v, frame %+v)", err, we, fe)
	}

	// JSON that does not fit: the *JSONError, and behind it base64's error.
	_, err = codec.FromJSON([]byte(`{"transactionalId":null,"acks":0,"timeoutMs":0,"topicData":[{"name":"t","partitionData":[{"index":0,"records":"!!"}]}]}`), s.Request(0), 3)
	var je *codec.JSONError
	var ce base64.CorruptInputError
	if !errors.As(err, &je) || je.Path != "$.topicData[0].partitionData[0].records" || !errors.As(err, &ce) {
		t.Errorf("bad base64: %v (%+v)", err, je)
	}
	// A VersionError names the specs when In says them.
	if got := (&codec.VersionError{Message: "VoteRequest", Version: 7, Valid: s.Request(52).ValidVersions, In: "Kafka 4.4.0"}).Error(); got != "VoteRequest has no version 7 in Kafka 4.4.0 (valid versions: 0-2)" {
		t.Errorf("VersionError: %q", got)
	}
}
