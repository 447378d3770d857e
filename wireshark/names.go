package wireshark

import (
	"strings"
	"unicode"
)

// snake turns a spec name into a filter name component: "PartitionIndex"
// is "partition_index", "ListOffsets" "list_offsets", "ISRVersion"
// "isr_version". An underscore goes before an upper-case letter that
// follows a lower-case letter or digit, or that starts a word after a run
// of capitals.
func snake(s string) string {
	var b strings.Builder
	r := []rune(s)
	for i, c := range r {
		if unicode.IsUpper(c) {
			if i > 0 && (unicode.IsLower(r[i-1]) || unicode.IsDigit(r[i-1]) ||
				(unicode.IsUpper(r[i-1]) && i+1 < len(r) && unicode.IsLower(r[i+1]))) {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(c))
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

// FilterName is the display filter name of the body field at path of
// api's request (or response): "kafka4." then the API, "request" or
// "response", and the path's field names, each in snake case, without
// array indices. FilterName("Fetch", false, "Topics[0].Partitions[0].Partition")
// is "kafka4.fetch.request.topics.partitions.partition". A field whose
// name another field of the same path holds with another type (across
// versions or releases) has its type appended ("…_int64"): see the
// generated F table.
func FilterName(api string, response bool, path string) string {
	side := "request"
	if response {
		side = "response"
	}
	return ProtoName + "." + snake(api) + "." + side + "." + snakePath(path)
}

// RecordFilterName is the display filter name of the field at path of a
// message that a record's value holds (a KRaft control record's
// LeaderChangeMessage, VotersRecord…): "kafka4." then the message's name
// and the path's field names, each in snake case, without array indices.
// RecordFilterName("LeaderChangeMessage", "Voters[0].VoterId") is
// "kafka4.leader_change_message.voters.voter_id".
func RecordFilterName(message, path string) string {
	return ProtoName + "." + snake(message) + "." + snakePath(path)
}

// snakePath is path's field names in snake case, without array indices,
// joined by dots.
func snakePath(path string) string {
	var parts []string
	for _, p := range strings.Split(path, ".") {
		if i := strings.IndexByte(p, '['); i >= 0 {
			p = p[:i]
		}
		parts = append(parts, snake(p))
	}
	return strings.Join(parts, ".")
}
