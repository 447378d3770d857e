package codec_test

import (
	"encoding/hex"
	"errors"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/wire"
)

// A truncated length-prefixed value and a truncated uvarint carry their
// counts in wire.Error.Need and Have, not only in the message.
func TestWireErrorNeedHave(t *testing.T) {
	set, err := kafka440()
	if err != nil {
		t.Fatal(err)
	}
	c := codec.New(set)
	// README's ApiVersions v3 request, cut inside ClientSoftwareName
	// ("apache-kafka-java", compact length 18 at 0x1c): 13 of its 17
	// bytes remain.
	full, _ := hex.DecodeString("000000310012000300000065000d61646d696e636c69656e742d310012617061636865" +
		"2d6b61666b612d6a61766106322e382e3000")
	var we *wire.Error
	_, err = c.DecodeRequest(full[:42])
	if !errors.As(err, &we) || we.Need != 17 || we.Have != 13 || we.Offset != 0x1d {
		t.Fatalf("cut string: %#v (%v)", we, err)
	}
	// Cut inside the uvarint of a compact length: 0x80 says more follows.
	cut := append([]byte(nil), full[:0x1c]...)
	cut = append(cut, 0x80)
	_, err = c.DecodeRequest(cut)
	if !errors.As(err, &we) || we.Need != 2 || we.Have != 1 || we.Offset != 0x1c {
		t.Fatalf("cut uvarint: %#v (%v)", we, err)
	}
}
