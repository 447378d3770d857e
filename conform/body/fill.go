package body

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/kwire/kwire/spec"
)

// decodeJSON decodes a template, keeping numbers as written (json.Number):
// int64 values stay exact and float64 values keep their fraction, which
// codec.FromJSON requires.
func decodeJSON(data []byte, out any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	return d.Decode(out)
}

// filler turns a template into the full body of one version: the
// template's values with placeholders replaced, every other field of the
// version at its default.
type filler struct {
	v     int16
	names Names
	key   int16
}

// jsonKey is Kafka's converter key of a spec field: lowerCaseFirst(name).
func jsonKey(f *spec.Field) string {
	if f.Name == "" {
		return ""
	}
	return strings.ToLower(f.Name[:1]) + f.Name[1:]
}

// structValue fills the fields of st at the filler's version from tmpl (nil:
// all defaults). Template keys of fields the version does not have, or
// that this spec does not know (a field of another release), are dropped;
// a test checks that every key names a field of some embedded release.
// Tagged fields are written only when the template gives them.
func (f *filler) structValue(st *spec.Struct, tmpl map[string]any, path string) (map[string]any, error) {
	out := make(map[string]any, len(st.Fields))
	for _, fd := range st.Fields {
		if !fd.PresentIn(f.v) {
			continue
		}
		k := jsonKey(fd)
		tv, has := tmpl[k]
		if !has {
			if fd.TaggedIn(f.v) {
				continue
			}
			out[k] = f.defaultValue(fd)
			continue
		}
		val, err := f.value(fd, tv, path+"."+k)
		if err != nil {
			return nil, err
		}
		out[k] = val
	}
	return out, nil
}

// value is the template value tv of field fd: structs and arrays of structs
// filled in, placeholders replaced.
func (f *filler) value(fd *spec.Field, tv any, path string) (any, error) {
	switch x := tv.(type) {
	case string:
		if strings.HasPrefix(x, "$") {
			return f.placeholder(x, path)
		}
	case map[string]any:
		if fd.Type.Kind == spec.KindStruct {
			return f.structValue(fd.Type.Struct, x, path)
		}
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			ep := path + "[" + strconv.Itoa(i) + "]"
			var err error
			if m, ok := e.(map[string]any); ok && fd.Type.Elem == spec.KindStruct {
				out[i], err = f.structValue(fd.Type.Struct, m, ep)
			} else if s, ok := e.(string); ok && strings.HasPrefix(s, "$") {
				out[i], err = f.placeholder(s, ep)
			} else {
				out[i] = e
			}
			if err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return tv, nil
}

// The placeholders a template may hold, each a whole JSON string.
const (
	phTopic        = "$topic"           // Names.Topic
	phTopicID      = "$topicId"         // Names.TopicID, base64url
	phGroup        = "$group"           // Names.Group
	phTxn          = "$txn"             // Names.TransactionalID
	phPrefix       = "$prefix"          // Names.Prefix
	phPrincipal    = "$principal"       // "User:" + Names.Prefix
	phMember       = "$member"          // a member id of Names.Group's own (KIP-848 protocols)
	phRecords      = "$records"         // one record for Names.Topic (Records)
	phSubscription = "$subscription"    // a consumer's subscription to Names.Topic (Subscription)
	phProducerID   = "$producerId"      // Names.Producer.ID, -1 without (a number)
	phProducerEp   = "$producerEpoch"   // Names.Producer.Epoch, -1 without (a number)
	phClassicID    = "$classicMemberId" // Names.Member.ID, "" without
	phGeneration   = "$generation"      // Names.Member.Generation, -1 without (a number)
	phHMAC         = "$hmac"            // Names.TokenHMAC, "kwire" without (base64)
)

// placeholder returns the value of placeholder p. An unknown placeholder
// is an error (a test sends every template through For).
func (f *filler) placeholder(p, path string) (any, error) {
	n := f.names
	switch p {
	case phTopic:
		return n.Topic, nil
	case phTopicID:
		return base64.RawURLEncoding.EncodeToString(n.TopicID[:]), nil
	case phGroup:
		return n.Group, nil
	case phTxn:
		return n.TransactionalID, nil
	case phPrefix:
		return n.Prefix, nil
	case phPrincipal:
		return "User:" + n.Prefix, nil
	case phMember:
		return MemberID(n), nil
	case phRecords:
		return base64.StdEncoding.EncodeToString(Records(f.key, f.v)), nil
	case phSubscription:
		return base64.StdEncoding.EncodeToString(Subscription(n.Topic)), nil
	case phProducerID:
		if n.Producer == nil {
			return json.Number("-1"), nil
		}
		return json.Number(strconv.FormatInt(n.Producer.ID, 10)), nil
	case phClassicID:
		if n.Member == nil {
			return "", nil
		}
		return n.Member.ID, nil
	case phGeneration:
		if n.Member == nil {
			return json.Number("-1"), nil
		}
		return json.Number(strconv.Itoa(int(n.Member.Generation))), nil
	case phHMAC:
		if n.TokenHMAC == nil {
			return base64.StdEncoding.EncodeToString([]byte("kwire")), nil
		}
		return base64.StdEncoding.EncodeToString(n.TokenHMAC), nil
	case phProducerEp:
		if n.Producer == nil {
			return json.Number("-1"), nil
		}
		return json.Number(strconv.Itoa(int(n.Producer.Epoch))), nil
	}
	return nil, fmt.Errorf("%s: unknown placeholder %q", path, p)
}

// MemberID is the member id the bodies of the KIP-848 group protocols
// (ConsumerGroupHeartbeat v1+, share and streams groups) give their member
// of n.Group: 22 characters of base64url (the form of Kafka's own
// Uuid.toString) made from a SHA-256 of the group id, so that every body
// of one Names speaks for the same member.
func MemberID(n Names) string {
	sum := sha256.Sum256([]byte("kwire-conform member of " + n.Group))
	return base64.RawURLEncoding.EncodeToString(sum[:16])
}

// defaultValue is field fd's spec default at the filler's version, as a
// converter JSON value: null where the default is null and the field is
// nullable, else the type's zero form (empty string, empty array, a struct
// of defaults).
func (f *filler) defaultValue(fd *spec.Field) any {
	null := fd.DefaultNull && fd.NullableIn(f.v)
	switch fd.Type.Kind {
	case spec.KindArray:
		if null {
			return nil
		}
		return []any{}
	case spec.KindStruct:
		if null {
			return nil
		}
		m, _ := f.structValue(fd.Type.Struct, nil, "")
		return m
	case spec.KindString:
		if null {
			return nil
		}
		return fd.DefaultString
	case spec.KindBytes, spec.KindRecords:
		if null || fd.Type.Kind == spec.KindRecords && fd.NullableIn(f.v) {
			return nil
		}
		return ""
	case spec.KindUUID:
		return base64.RawURLEncoding.EncodeToString(fd.DefaultUUID[:])
	case spec.KindBool:
		return fd.DefaultInt != 0
	case spec.KindFloat64:
		switch {
		case math.IsNaN(fd.DefaultFloat):
			return "NaN"
		case math.IsInf(fd.DefaultFloat, 1):
			return "Infinity"
		case math.IsInf(fd.DefaultFloat, -1):
			return "-Infinity"
		}
		s := strconv.FormatFloat(fd.DefaultFloat, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eEN") {
			s += ".0"
		}
		return json.Number(s)
	}
	return json.Number(strconv.FormatInt(fd.DefaultInt, 10))
}
