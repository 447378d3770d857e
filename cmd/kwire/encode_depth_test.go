package main

import (
	"strings"
	"testing"
)

// TestEncodeRefusesDeepJSON: JSON nested past codec.MaxJSONDepth is refused
// where the bound is crossed, with a short path and where in the input,
// whether or not it is ever closed, for a plain message and for the
// internal-topic values whose JSON is read twice (logseg.FromJSON).
func TestEncodeRefusesDeepJSON(t *testing.T) {
	deep := strings.Repeat("[", 1_000_000)
	for _, c := range []struct {
		args []string
		json string
		want string
	}{
		{[]string{"Vote", "--version", "2"}, `{"clusterId":` + deep, `kwire: $.clusterId` + strings.Repeat("[0]", 63) + `: objects and arrays nested deeper than 64 levels at byte 76 (Kafka's messages nest a few) (at stdin:1:77)`},
		{[]string{"Vote", "--version", "2"}, `{"clusterId":` + deep + strings.Repeat("]", 1_000_000) + `}`, `nested deeper than 64 levels at byte 76`},
		{[]string{"GroupMetadataValue", "--version", "3"}, `{"members":[{"subscription":{"version":0,"data":{"topics":` + deep, `kwire: $.members[0].subscription.data.topics` + strings.Repeat("[0]", 59) + `: objects and arrays nested deeper than 64 levels`},
		{[]string{"TransactionLogValue", "--version", "0"}, `{"transactionStatus":` + deep, `kwire: $.transactionStatus` + strings.Repeat("[0]", 63) + `: objects and arrays nested deeper than 64 levels`},
	} {
		r := withStdin(t, c.json, append(append([]string{"encode"}, c.args...), "-")...)
		if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, c.want) {
			t.Errorf("encode %s: exit %d, stderr %.500q, want %q", strings.Join(c.args, " "), r.code, r.stderr, c.want)
		}
		if len(r.stderr) > 600 {
			t.Errorf("encode %s: %d bytes of error", strings.Join(c.args, " "), len(r.stderr))
		}
	}
}
