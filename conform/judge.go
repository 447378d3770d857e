package conform

import (
	"errors"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/flow"
	"github.com/kwire/kwire/frame"
	"github.com/kwire/kwire/render"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/tree"
	"github.com/kwire/kwire/wire"
)

// Judgement is what Judge found in one response.
type Judgement struct {
	// Findings are the rules broken, in byte order within each rule.
	Findings []Finding
	// Error is the name of the first non-zero error code Kafka defines
	// ("UNKNOWN_TOPIC_OR_PARTITION"), "" when none.
	Error string
}

// Judge judges the response resp to the request req (both span trees, as
// package client's Exchange holds them; resp decoded by c with
// decodeErr, c strict to catch tagged fields out of order). The rules:
//   - the response decodes strictly (decodeErr nil): when it does not,
//     the finding is the decode error's path and offset — "left-over" for
//     bytes after the body, "header-version" when the frame decodes with
//     the other response header version (a tagged-field section missing
//     or added after the correlation id), else "decode"; a response that
//     does not decode is judged no further;
//   - the records it holds have no problems (tree.Tree.Errors: "records");
//   - every string is valid UTF-8 ("utf8");
//   - every error code is one Kafka defines ("error-code"; flow.ErrorName);
//   - ThrottleTimeMs is not negative ("throttle");
//   - every topic the request names (by name or id) is in the response
//     when the response names topics, and every partition asked for of a
//     topic answered without a topic-level error ("unanswered"), unless
//     the response's top-level ErrorCode is non-zero (an answer to the
//     whole request) or the API pages its answer (DescribeTopicPartitions).
func Judge(c *codec.Codec, req, resp *tree.Tree, decodeErr error) Judgement {
	var j Judgement
	if decodeErr != nil {
		if f, ok := headerVersion(c, resp); ok {
			j.Findings = append(j.Findings, f)
			return j
		}
		var we *wire.Error
		var fe *codec.FrameError
		switch {
		case errors.As(decodeErr, &we):
			rule := "decode"
			if errors.Is(decodeErr, codec.ErrTrailing) {
				rule = "left-over"
			}
			msg := we.Msg
			if msg == "" {
				msg = fmt.Sprintf("need %s, have %d", wire.Bytes(we.Need), we.Have)
			}
			j.Findings = append(j.Findings, Finding{Rule: rule, Path: we.Path, Offset: we.Offset, Message: msg})
			if rule == "decode" {
				return j
			}
		case errors.As(decodeErr, &fe):
			j.Findings = append(j.Findings, Finding{Rule: "decode", Offset: 0, Message: fe.Error()})
			return j
		default:
			j.Findings = append(j.Findings, Finding{Rule: "decode", Offset: -1, Message: decodeErr.Error()})
			return j
		}
	}
	x := render.NewIndex(resp)
	for _, p := range resp.Errors() {
		j.Findings = append(j.Findings, Finding{Rule: "records", Path: p.Path, Offset: int(p.Off), Message: p.Msg})
	}
	bodyNode := resp.Part(tree.Body)
	for i := range resp.Nodes {
		n := resp.Nodes[i]
		if n.Flags()&tree.FlagVirtual != 0 || n.Kind() != tree.Field && n.Kind() != tree.Element {
			continue
		}
		f := resp.Field(int32(i))
		switch {
		case n.Wire() == tree.WireString || n.Wire() == tree.WireCompactString:
			if d := resp.Data(int32(i)); !n.Null() && !utf8.Valid(d) {
				j.Findings = append(j.Findings, Finding{Rule: "utf8", Path: x.Path(int32(i)), Offset: int(n.Off), Message: fmt.Sprintf("%q is not valid UTF-8", d)})
			}
		case f != nil && n.Kind() == tree.Field && n.Wire() == tree.WireInt16 && len(f.Name) >= 9 && f.Name[len(f.Name)-9:] == "ErrorCode":
			code := int16(resp.Num(int32(i)))
			if code == 0 {
				continue
			}
			name := flow.ErrorName(code)
			if name == "" {
				j.Findings = append(j.Findings, Finding{Rule: "error-code", Path: x.Path(int32(i)), Offset: int(n.Off), Message: fmt.Sprintf("error code %d is not one Kafka defines", code)})
			} else if j.Error == "" {
				j.Error = name
			}
		case f != nil && f.Name == "ThrottleTimeMs" && resp.Parent(int32(i)) == bodyNode:
			if ms := resp.Num(int32(i)); ms < 0 {
				j.Findings = append(j.Findings, Finding{Rule: "throttle", Path: x.Path(int32(i)), Offset: int(n.Off), Message: fmt.Sprintf("throttle time %d ms is negative", ms)})
			}
		}
	}
	j.Findings = append(j.Findings, unanswered(req, resp, x)...)
	return j
}

// headerVersion checks a response that did not decode for the other
// response header version: when the frame decodes strictly with an empty
// tagged-field section added after the correlation id (header v1 expected,
// v0 written) or with the byte there removed (v0 expected, v1 written), the
// finding is the header version.
func headerVersion(c *codec.Codec, resp *tree.Tree) (Finding, bool) {
	b := resp.Bytes
	m, v := resp.Message, resp.Version
	if m == nil || len(b) < 8 {
		return Finding{}, false
	}
	hv := frame.ResponseHeaderVersion(m, v)
	var alt []byte
	var msg string
	switch {
	case hv == 1:
		alt = append(append(slices.Clone(b[:8]), 0), b[8:]...)
		msg = fmt.Sprintf("response header v0 (no tagged-field section after the correlation id) where %s v%d has header v1", m.Name, v)
	case len(b) > 8 && b[8] == 0:
		alt = append(slices.Clone(b[:8]), b[9:]...)
		msg = fmt.Sprintf("response header v1 (a tagged-field section after the correlation id) where %s v%d has header v0", m.Name, v)
	default:
		return Finding{}, false
	}
	size := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
	if hv == 1 {
		size++
	} else {
		size--
	}
	alt[0], alt[1], alt[2], alt[3] = byte(size>>24), byte(size>>16), byte(size>>8), byte(size)
	if _, err := c.DecodeResponse(alt, m, v); err != nil {
		return Finding{}, false
	}
	return Finding{Rule: "header-version", Path: "ResponseHeader", Offset: 8, Message: msg}, true
}

// paged are the APIs whose answers may leave out what was asked for by
// design: DescribeTopicPartitions (KIP-966: a partition limit and a
// cursor).
var paged = []int16{75}

// topicAsked is a topic named in a message, by name, id or both, with
// the partitions named in its element.
type topicAsked struct {
	name       string
	id         [16]byte
	node       int32 // the topic's element
	partitions []int64
	errorCode  int64
}

// same reports whether a and b are the same topic: the same name, or the
// same non-zero id.
func (a topicAsked) same(b topicAsked) bool {
	return a.name == b.name || a.id != [16]byte{} && a.id == b.id
}

// text names the topic: its name, else its id.
func (a topicAsked) text() string {
	switch {
	case a.id == [16]byte{}:
		return fmt.Sprintf("%q", a.name)
	case a.name == "":
		return fmt.Sprintf("id %x", a.id)
	}
	return fmt.Sprintf("%q (id %x)", a.name, a.id)
}

// topicsOf collects the topic elements of t: the array elements holding a
// topic name or topic id field, with the partition numbers in them.
func topicsOf(t *tree.Tree) (out []topicAsked, hasTopics bool) {
	for i := range t.Nodes {
		n := t.Nodes[i]
		if n.Kind() != tree.Field || n.Flags()&tree.FlagVirtual != 0 {
			continue
		}
		f := t.Field(int32(i))
		if f == nil || !f.IsTopicName() && !f.IsTopicID() {
			continue
		}
		hasTopics = true
		el := t.Parent(int32(i))
		if el < 0 || t.Nodes[el].Kind() != tree.Element {
			continue // a topic named outside an array: not asked for as one of several
		}
		k := slices.IndexFunc(out, func(a topicAsked) bool { return a.node == el })
		if k < 0 {
			out = append(out, topicAsked{node: el})
			k = len(out) - 1
			ta := &out[k]
			for c := el + 1; c < t.EndOf(el); c++ {
				cf := t.Field(c)
				if cf == nil {
					continue
				}
				switch cf.Name {
				case "PartitionIndex", "Partition", "PartitionId", "Index", "PartitionIndexes", "Partitions":
					if k := t.Nodes[c].Kind(); (k == tree.Field || k == tree.Element) && t.Nodes[c].Wire() == tree.WireInt32 {
						ta.partitions = append(ta.partitions, t.Num(c))
					}
				case "ErrorCode":
					if t.Parent(c) == el {
						ta.errorCode = t.Num(c)
					}
				}
			}
		}
		if f.IsTopicName() {
			out[k].name = string(t.Data(int32(i)))
		} else if d := t.Data(int32(i)); len(d) == 16 {
			out[k].id = [16]byte(d)
		}
	}
	return out, hasTopics
}

// unanswered finds the topics and partitions req asked for that resp does
// not answer.
func unanswered(req, resp *tree.Tree, x *render.Index) []Finding {
	if req == nil || resp.Message == nil || slices.Contains(paged, resp.Message.APIKey) {
		return nil
	}
	if b := resp.Part(tree.Body); b >= 0 {
		if ec := resp.At(b).Field("ErrorCode"); ec.Err() == nil && ec.Int() != 0 {
			return nil
		}
	}
	asked, _ := topicsOf(req)
	return unansweredOf(asked, req, resp, x)
}

// unansweredOf finds the topics and partitions of asked that resp does not
// answer.
func unansweredOf(asked []topicAsked, req, resp *tree.Tree, x *render.Index) []Finding {
	if len(asked) == 0 {
		return nil
	}
	got, has := topicsOf(resp)
	if !has {
		return nil
	}
	var out []Finding
	where := func() (string, int) {
		if len(got) > 0 {
			arr := resp.Parent(got[0].node)
			return x.Path(arr), int(resp.Nodes[arr].Off)
		}
		if b := resp.Part(tree.Body); b >= 0 {
			return x.Path(b), int(resp.Nodes[b].Off)
		}
		return "", -1
	}
	for _, a := range asked {
		if len(a.partitions) == 0 && hasPartitionField(req, a.node) {
			continue // a topic asked about with no partition: nothing to answer
		}
		// Every element answering the topic: a target may answer a topic
		// asked for twice in one element or in two.
		var match []topicAsked
		for _, g := range got {
			if a.same(g) {
				match = append(match, g)
			}
		}
		if len(match) == 0 {
			p, off := where()
			out = append(out, Finding{Rule: "unanswered", Path: p, Offset: off, Message: fmt.Sprintf("topic %s asked for is not answered", a.text())})
			continue
		}
		var parts []int64
		skip := false
		for _, g := range match {
			parts = append(parts, g.partitions...)
			skip = skip || g.errorCode != 0 || len(g.partitions) == 0 && len(a.partitions) > 0 && !hasPartitionField(resp, g.node)
		}
		if skip {
			continue
		}
		g := match[0]
		for _, pn := range a.partitions {
			if !slices.Contains(parts, pn) {
				out = append(out, Finding{Rule: "unanswered", Path: x.Path(g.node), Offset: int(resp.Nodes[g.node].Off), Message: fmt.Sprintf("partition %d of topic %s asked for is not answered", pn, a.text())})
			}
		}
	}
	return out
}

// hasPartitionField reports whether the spec of the struct of element el
// has partitions to answer with (a partitions array), so that an empty
// answer is one.
func hasPartitionField(t *tree.Tree, el int32) bool {
	st := t.Struct(el)
	if st == nil {
		for c := el + 1; c < t.EndOf(el); c++ {
			if f := t.Field(c); f != nil && t.Nodes[c].Kind() == tree.Array && (f.Name == "Partitions" || f.Name == "PartitionResponses" || f.Name == "PartitionIndexes" || f.Name == "PartitionData") {
				return true
			}
		}
		return false
	}
	for _, f := range st.Fields {
		if f.Name == "Partitions" || f.Name == "PartitionResponses" || f.Name == "PartitionIndexes" || f.Name == "PartitionData" {
			return true
		}
	}
	return false
}

var _ = spec.Request
