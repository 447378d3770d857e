package flow

import (
	"encoding/base64"
	"strconv"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/records"
)

// produce is a Produce v9 request whose one records field holds recs.
func produce(t *testing.T, c *codec.Codec, corr int32, recs []byte) []byte {
	t.Helper()
	return reqFrame(t, c, "Produce", 9, corr, "p", `{"transactionalId":null,"acks":-1,"timeoutMs":100,"topicData":[{"name":"t","partitionData":[{"index":0,"records":"`+
		base64.StdEncoding.EncodeToString(recs)+`"}]}]}`)
}

// A batch whose CRC does not match is a Records problem of the request
// that holds it, at the byte of the CRC, naming its path; a partial batch
// at the end of the records (a notice, as in a fetch at its size limit)
// is none. The exchange is reported as usual.
func TestRecordsProblemsAreReported(t *testing.T) {
	c := codec.New(testSet)
	batch := records.Batch{BaseOffset: 0, Timestamp: 1700000000000, Records: []records.KeyValue{{Key: []byte("k"), Value: []byte("hello")}}}.Bytes()
	good := produce(t, c, 1, append(append([]byte{}, batch...), batch[:20]...))
	bad := append([]byte{}, batch...)
	bad[len(bad)-2] ^= 0xff // the value's last byte: the CRC-32C no longer matches
	corrupt := produce(t, c, 2, bad)
	r := newConn(Options{})
	r.conn.Data(ClientToServer, good, t0)
	r.conn.Data(ClientToServer, corrupt, t0)
	r.conn.Close(t0)
	if len(r.pr) != 1 || len(r.ex) != 2 {
		t.Fatalf("problems %v, exchanges %d", r.pr, len(r.ex))
	}
	p := r.pr[0]
	// The batch starts 32 bytes into the frame (size 4, header v2 12,
	// transactional_id 1, acks 2, timeoutMs 4, topics 1, name 2,
	// partitions 1, index 4, the records' length 1), its CRC 17 bytes
	// after that.
	crc := int64(len(good)) + 32 + 17
	const msg = "ProduceRequest.TopicData[0].PartitionData[0].Records[0].crc at 0x0031: CRC-32C 0x36ff4dc3 stored, "
	if p.Kind != Records || p.Dir != ClientToServer || p.FrameOffset != int64(len(good)) || p.Offset != crc ||
		p.Size != int64(len(corrupt)) || p.APIKey != 0 || p.Version != 9 || p.CorrelationID != 2 ||
		p.Path != "ProduceRequest.TopicData[0].PartitionData[0].Records[0].crc" || p.Err == nil || p.Err.Error()[:len(msg)] != msg {
		t.Fatalf("%+v (%v)", p, p.Err)
	}
	want := "c2s at stream offset " + itoa(crc) + ": request (api key 0 v9, correlation id 2) in the frame at stream offset " + itoa(int64(len(good))) +
		" has a problem in its records: " + p.Err.Error()
	if p.String() != want || p.Kind.String() != "records" {
		t.Errorf("%s\nwant %s", p, want)
	}
	if st := r.conn.Stats(); st.Problems != 1 || st.Exchanges != 2 {
		t.Errorf("stats %+v", st)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
