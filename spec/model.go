package spec

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxVersion is the open end of a "N+" range (Java's Short.MAX_VALUE), as in
// Kafka's generator (org.apache.kafka.message.Versions).
const MaxVersion = 32767

// Versions is an inclusive range of versions [Lo, Hi]. The empty range
// ("none") has Lo 0 and Hi -1. "N+" is {N, 32767}.
type Versions struct {
	Lo, Hi int16
}

// None is the empty version range.
var None = Versions{0, -1}

// All is the range "0+".
var All = Versions{0, MaxVersion}

// ParseVersions parses a version-range string as Kafka's generator does:
// "none", "N+", "A-B" (split at the first '-'), or "N"; leading and trailing
// spaces are trimmed and every number must lie in 0..32767. An empty string
// yields (None, false, nil): the caller applies its own default. "3-1" is
// accepted as an empty range, like Kafka.
func ParseVersions(s string) (v Versions, present bool, err error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return None, false, nil
	}
	if s == "none" {
		return None, true, nil
	}
	num := func(t string) (int16, error) {
		n, err := strconv.ParseInt(t, 10, 16)
		if err != nil || n < 0 || strings.HasPrefix(t, "+") {
			return 0, fmt.Errorf("invalid version %q: want a number 0..32767", t)
		}
		return int16(n), nil
	}
	if strings.HasSuffix(s, "+") {
		lo, err := num(s[:len(s)-1])
		if err != nil {
			return None, true, fmt.Errorf("invalid version range %q: %v", s, err)
		}
		return Versions{lo, MaxVersion}, true, nil
	}
	if i := strings.IndexByte(s, '-'); i >= 0 {
		lo, err1 := num(s[:i])
		hi, err2 := num(s[i+1:])
		if err1 != nil || err2 != nil {
			return None, true, fmt.Errorf("invalid version range %q: want \"none\", \"N\", \"N+\" or \"A-B\"", s)
		}
		if hi < lo {
			return None, true, nil
		}
		return Versions{lo, hi}, true, nil
	}
	n, err := num(s)
	if err != nil {
		return None, true, fmt.Errorf("invalid version range %q: want \"none\", \"N\", \"N+\" or \"A-B\"", s)
	}
	return Versions{n, n}, true, nil
}

// Empty reports whether the range holds no version.
func (v Versions) Empty() bool { return v.Hi < v.Lo }

// Contains reports whether version x is in the range.
func (v Versions) Contains(x int16) bool { return x >= v.Lo && x <= v.Hi }

// OpenEnded reports whether the range is "N+".
func (v Versions) OpenEnded() bool { return !v.Empty() && v.Hi == MaxVersion }

// Intersect returns the versions in both ranges.
func (v Versions) Intersect(o Versions) Versions {
	r := Versions{max(v.Lo, o.Lo), min(v.Hi, o.Hi)}
	if r.Empty() {
		return None
	}
	return r
}

// ContainsRange reports whether every version of o is in v (an empty o is
// contained in anything).
func (v Versions) ContainsRange(o Versions) bool {
	return o.Empty() || (o.Lo >= v.Lo && o.Hi <= v.Hi)
}

// String renders the range as Kafka writes it: "none", "3", "0+", "0-2".
func (v Versions) String() string {
	switch {
	case v.Empty():
		return "none"
	case v.Hi == MaxVersion:
		return fmt.Sprintf("%d+", v.Lo)
	case v.Lo == v.Hi:
		return strconv.Itoa(int(v.Lo))
	default:
		return fmt.Sprintf("%d-%d", v.Lo, v.Hi)
	}
}

// Kind is the wire kind of a field type (G/FieldType in Kafka's generator).
type Kind uint8

// Kinds of field types. Names and wire encodings follow Kafka's FieldType.
const (
	KindInvalid Kind = iota
	KindBool
	KindInt8
	KindInt16
	KindUint16
	KindInt32
	KindUint32
	KindInt64
	KindFloat64
	KindUUID
	KindString
	KindBytes
	KindRecords
	KindStruct
	KindArray
)

var kindNames = [...]string{"invalid", "bool", "int8", "int16", "uint16", "int32", "uint32", "int64", "float64", "uuid", "string", "bytes", "records", "struct", "array"}

// String is the spec type name of the kind ("int32", "uuid", "struct").
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// FixedSize is the encoded width in bytes of a fixed-size kind, or 0.
func (k Kind) FixedSize() int {
	switch k {
	case KindBool, KindInt8:
		return 1
	case KindInt16, KindUint16:
		return 2
	case KindInt32, KindUint32:
		return 4
	case KindInt64, KindFloat64:
		return 8
	case KindUUID:
		return 16
	}
	return 0
}

// CanBeNullable reports whether Kafka allows nullableVersions on this kind:
// string, bytes, records, struct and array only (FieldType.canBeNullable).
func (k Kind) CanBeNullable() bool {
	switch k {
	case KindString, KindBytes, KindRecords, KindStruct, KindArray:
		return true
	}
	return false
}

// primitiveKinds maps the lower-case type names of Kafka's FieldType.parse.
var primitiveKinds = map[string]Kind{
	"bool": KindBool, "int8": KindInt8, "int16": KindInt16, "uint16": KindUint16, "int32": KindInt32,
	"uint32": KindUint32, "int64": KindInt64, "float64": KindFloat64, "uuid": KindUUID,
	"string": KindString, "bytes": KindBytes, "records": KindRecords,
}

// PrimitiveKind returns the kind of a primitive type name ("int32",
// "records"…) and whether it is one.
func PrimitiveKind(name string) (Kind, bool) {
	k, ok := primitiveKinds[name]
	return k, ok
}

// PrimitiveNames lists the primitive type names Kafka's generator accepts.
func PrimitiveNames() []string {
	return []string{"bool", "int8", "int16", "uint16", "int32", "uint32", "int64", "float64", "uuid", "string", "bytes", "records"}
}

// Type is a parsed field type: a primitive, a struct, or an array of either.
// For KindArray, Elem is the element kind and, when Elem is KindStruct, Struct is
// the element struct; for KindStruct, Struct is the struct.
type Type struct {
	Kind   Kind
	Elem   Kind
	Name   string  // the struct name for KindStruct and []Struct, else ""
	Struct *Struct // resolved struct (nil until resolved)
}

// ParseType parses a spec type string ("int32", "[]TopicData", "Assignment")
// with Kafka's FieldType.parse rules: lower-case words must be primitives,
// a word starting with an upper-case letter is a struct name, arrays of
// arrays are rejected.
func ParseType(s string) (Type, error) {
	if strings.HasPrefix(s, "[]") {
		e := s[2:]
		if strings.HasPrefix(e, "[]") {
			return Type{}, fmt.Errorf("arrays of arrays are not allowed: %q", s)
		}
		et, err := ParseType(e)
		if err != nil {
			return Type{}, err
		}
		if et.Kind == KindRecords {
			return Type{}, fmt.Errorf("arrays of records are not allowed: %q", s)
		}
		return Type{Kind: KindArray, Elem: et.Kind, Name: et.Name}, nil
	}
	if k, ok := primitiveKinds[s]; ok {
		return Type{Kind: k}, nil
	}
	if s != "" && s[0] >= 'A' && s[0] <= 'Z' && isIdent(s) {
		return Type{Kind: KindStruct, Name: s}, nil
	}
	return Type{}, fmt.Errorf("unknown type %q", s)
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// IsStructLike reports whether values of the type are (arrays of) structs.
func (t Type) IsStructLike() bool {
	return t.Kind == KindStruct || (t.Kind == KindArray && t.Elem == KindStruct)
}

// Pos is a position in a spec file: 1-based line and column (in bytes).
type Pos struct {
	File string
	Line int
	Col  int
}

// String renders the position as file:line:col (or just the file).
func (p Pos) String() string {
	if p.Line == 0 {
		return p.File
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Field is one entry of a spec's "fields" array (G/FieldSpec). Raw strings
// are kept next to parsed values so that lint, compat and history can see
// what the file said.
type Field struct {
	Name             string
	TypeString       string
	Type             Type
	Versions         Versions
	NullableVersions Versions
	TaggedVersions   Versions
	// Tag is the tag number when HasTag.
	Tag    int32
	HasTag bool
	// Default is the raw "default" text ("" when absent or JSON null, as in
	// Kafka); see the Default* fields for the parsed value.
	Default    string
	Ignorable  bool
	MapKey     bool
	EntityType string
	ZeroCopy   bool
	// FlexibleVersions is the per-field override (only string/bytes; only
	// RequestHeader.ClientId uses it, with "none"); HasFlexibleVersions tells
	// whether it was given.
	FlexibleVersions    Versions
	HasFlexibleVersions bool
	About               string
	// Fields are the inline struct fields (for struct-typed fields).
	Fields []*Field
	Pos    Pos

	// Parsed default (see Kafka's FieldSpec.fieldDefault).
	DefaultNull   bool    // "default": "null"
	DefaultInt    int64   // integer kinds and bool (0/1)
	DefaultFloat  float64 // float64
	DefaultString string  // string
	DefaultUUID   [16]byte
}

// PresentIn reports whether the field is on the wire (positional or tagged)
// at version v.
func (f *Field) PresentIn(v int16) bool { return f.Versions.Contains(v) }

// TaggedIn reports whether the field is a tagged field at version v.
func (f *Field) TaggedIn(v int16) bool { return f.HasTag && f.TaggedVersions.Contains(v) }

// NullableIn reports whether the field may be null at version v.
func (f *Field) NullableIn(v int16) bool { return f.NullableVersions.Contains(v) }

// Struct is a struct definition: the message body, an inline struct, or a
// commonStruct (G/StructSpec).
type Struct struct {
	Name     string
	Versions Versions
	Fields   []*Field
	Common   bool
	Pos      Pos
}

// MessageType is a spec's "type": request, response, header, metadata,
// data, coordinator-key or coordinator-value.
type MessageType string

// The message types of Kafka's generator (G/MessageSpecType); the
// coordinator types appear in newer releases' group-coordinator specs.
const (
	Request          MessageType = "request"
	Response         MessageType = "response"
	Header           MessageType = "header"
	Metadata         MessageType = "metadata"
	Data             MessageType = "data"
	CoordinatorKey   MessageType = "coordinator-key"
	CoordinatorValue MessageType = "coordinator-value"
)

// Message is one spec file: a request, response, header, metadata record or
// data message (G/MessageSpec).
type Message struct {
	Name                  string
	Type                  MessageType
	APIKey                int16 // -1 when absent
	Listeners             []string
	ValidVersions         Versions
	FlexibleVersions      Versions
	DeprecatedVersions    Versions
	LatestVersionUnstable bool
	// Root is the top-level struct holding the message's fields.
	Root          *Struct
	CommonStructs []*Struct
	// Structs holds every struct of the file by name (inline and common).
	Structs map[string]*Struct
	// File is the spec's path as given by its source; Text is its content.
	File string
	Text []byte
	Pos  Pos
	// Topic is the internal topic whose records the spec defines (a
	// coordinator record key or value, a remote-log-metadata record), set
	// by the Set from where the file came from; "" for every other spec.
	Topic Topic
	// RecordTypes are the coordinator record types of a record key or value
	// (IsRecordKey, IsRecordValue), set by the Set: a "coordinator-key" or
	// "coordinator-value" spec's api key; a "data" key's valid versions and
	// its value's (the same ones). None otherwise.
	RecordTypes Versions
}

// Flexible reports whether version v uses the flexible encoding (compact
// strings/arrays, tagged fields), i.e. v is in flexibleVersions.
func (m *Message) Flexible(v int16) bool { return m.FlexibleVersions.Contains(v) }

// UnstableVersion is the version a request marks unstable: its highest
// valid version when it has latestVersionUnstable (a broker accepts it only
// with unstable API versions enabled), else -1. Responses and other
// messages return -1 (see Set.UnstableVersion for a response).
func (m *Message) UnstableVersion() int16 {
	if m.Type != Request || !m.LatestVersionUnstable || m.ValidVersions.Empty() {
		return -1
	}
	return m.ValidVersions.Hi
}

// StableVersions are the valid versions less the unstable one
// (UnstableVersion): the versions a broker of the release accepts by
// default. None when the only valid version is unstable.
func (m *Message) StableVersions() Versions {
	vv := m.ValidVersions
	if u := m.UnstableVersion(); u >= 0 {
		if vv.Lo == u {
			return None
		}
		vv.Hi = u - 1
	}
	return vv
}

// BaseName is the name without its Request/Response suffix
// ("VoteRequest" -> "Vote"); other names are returned unchanged.
func (m *Message) BaseName() string {
	switch m.Type {
	case Request:
		return strings.TrimSuffix(m.Name, "Request")
	case Response:
		return strings.TrimSuffix(m.Name, "Response")
	}
	return m.Name
}
