package render

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kwire/kwire/tree"
)

// WriteJSON writes the page as one JSON object:
//
//	{"api_key":54,"name":"EndQuorumEpoch","type":"api","version":1,
//	 "flexible_versions":"1+","valid_versions":"0-1",
//	 "request":{"message":…,"version":1,"size":62,"hex":"…","header_version":2,"error":null,"tree":{…}},
//	 "response":{…}}
//
// Each side is keyed by its lower-cased label ("request", "response",
// "record"). A tree node is {"name","kind","type","value","text","offset",
// "size","about","path","region","children"}: value is the JSON-native
// value (number, string, bool or null; a uuid as 8-4-4-4-12; bytes as hex;
// an array's element count; null for structs and other groups), text the
// row's "= …" text without "= ", path the field path
// ("VoteRequest.Topics[0].PreVote", "RequestHeader.ClientId"), children
// always present. Keys are stable: absent values are null.
func WriteJSON(w io.Writer, p *Page) error {
	in := pageInfo(p)
	b := make([]byte, 0, 4096)
	b = append(b, `{"api_key":`...)
	b = appendIntOrNull(b, int64(in.key), in.key >= 0)
	b = append(b, `,"name":`...)
	b = appendStringOrNull(b, in.name, in.msg != nil)
	b = append(b, `,"type":`...)
	b = appendJSONString(b, in.typ)
	b = append(b, `,"version":`...)
	b = appendIntOrNull(b, int64(in.version), in.msg != nil)
	flex, valid := "", ""
	if in.msg != nil {
		flex, valid = in.msg.FlexibleVersions.String(), in.msg.ValidVersions.String()
		if in.api {
			flex, valid = versionsText(in.req, in.resp, flexibleOf), versionsText(in.req, in.resp, validOf)
		}
	}
	b = append(b, `,"flexible_versions":`...)
	b = appendStringOrNull(b, flex, flex != "")
	b = append(b, `,"valid_versions":`...)
	b = appendStringOrNull(b, valid, valid != "")
	for k, s := range p.Sides {
		b = append(b, ',')
		b = appendJSONString(b, sideKey(s.Label, k))
		b = append(b, ':')
		b = appendSide(b, &s)
	}
	b = append(b, '}')
	var out bytes.Buffer
	out.Grow(len(b) * 2)
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return err
	}
	out.WriteByte('\n')
	_, err := w.Write(out.Bytes())
	return err
}

// sideKey is a side's JSON key: its label in lower case, or "side<k>".
func sideKey(label string, k int) string {
	if label == "" {
		return "side" + strconv.Itoa(k)
	}
	return strings.ToLower(label)
}

func appendSide(b []byte, s *Side) []byte {
	t := s.Tree
	b = append(b, `{"message":`...)
	hasMsg := t != nil && t.Message != nil
	if hasMsg {
		b = appendJSONString(b, t.Message.Name)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"version":`...)
	if hasMsg {
		b = strconv.AppendInt(b, int64(t.Version), 10)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"size":`...)
	var data []byte
	if t != nil {
		data = t.Bytes
	}
	b = strconv.AppendInt(b, int64(len(data)), 10)
	b = append(b, `,"hex":"`...)
	b = hex.AppendEncode(b, data)
	b = append(b, `","header_version":`...)
	b = appendIntOrNull(b, int64(headerVersion(t)), t != nil && t.HeaderVersion >= 0)
	b = append(b, `,"error":`...)
	if s.Err != nil {
		b = appendJSONString(b, s.Err.Error())
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"tree":`...)
	if t == nil || len(t.Nodes) == 0 {
		b = append(b, "null"...)
	} else {
		b = appendNode(b, t, 0, childCtx(t, -1, ctx{}, 0), "", "")
	}
	return append(b, '}')
}

func headerVersion(t *tree.Tree) int16 {
	if t == nil {
		return -1
	}
	return t.HeaderVersion
}

// appendNode writes node i and its subtree. structPath is the path of the
// struct whose fields i's field children are (tag sections and tag entries
// pass it through, so a tagged field's path is its struct's path plus its
// name, as in the codec's error paths).
func appendNode(b []byte, t *tree.Tree, i int32, c ctx, parentPath, structPath string) []byte {
	n := &t.Nodes[i]
	path := nodePath(t, i, c, parentPath, structPath)
	b = append(b, `{"name":`...)
	b = appendJSONString(b, nodeName(t, i, c))
	b = append(b, `,"kind":`...)
	b = appendJSONString(b, n.Kind.String())
	b = append(b, `,"type":`...)
	b = appendJSONString(b, nodeType(t, i, c))
	b = append(b, `,"value":`...)
	b = appendValue(b, t, i)
	b = append(b, `,"text":`...)
	b = appendJSONString(b, nodeValue(t, i, c))
	b = append(b, `,"offset":`...)
	b = strconv.AppendInt(b, int64(n.Off), 10)
	b = append(b, `,"size":`...)
	b = strconv.AppendInt(b, int64(n.Size), 10)
	b = append(b, `,"about":`...)
	b = appendJSONString(b, nodeAbout(t, i, c))
	b = append(b, `,"path":`...)
	b = appendJSONString(b, path)
	b = append(b, `,"region":`...)
	b = appendJSONString(b, c.region.String())
	b = append(b, `,"children":[`...)
	if structLike(t, i) {
		structPath = path
	}
	batch := 0
	for k := i + 1; k < n.End && t.Nodes[k].End > k; k = t.Nodes[k].End {
		if k > i+1 {
			b = append(b, ',')
		}
		pp := path
		if t.Nodes[k].Kind == tree.RecordBatch {
			pp = path + "[" + strconv.Itoa(batch) + "]"
			batch++
		}
		b = appendNode(b, t, k, childCtx(t, i, c, k), pp, structPath)
	}
	return append(b, "]}"...)
}

// structLike reports whether node i's field children belong to it.
func structLike(t *tree.Tree, i int32) bool {
	switch t.Nodes[i].Kind {
	case tree.Header, tree.Body, tree.Struct:
		return true
	case tree.Element:
		return t.Struct(i) != nil
	}
	return false
}

// nodePath is node i's path. For a RecordBatch, parentPath already ends
// with the batch's index.
func nodePath(t *tree.Tree, i int32, c ctx, parentPath, structPath string) string {
	n := &t.Nodes[i]
	switch n.Kind {
	case tree.Message:
		return ""
	case tree.Frame, tree.Header, tree.Body:
		return nodeName(t, i, c)
	case tree.Field, tree.Struct, tree.Array, tree.Records:
		if f := t.Field(i); f != nil {
			return join(structPath, f.Name)
		}
	case tree.Element:
		return parentPath + "[" + strconv.Itoa(int(n.Index)) + "]"
	case tree.TagSection:
		return join(parentPath, "_tagged_fields")
	case tree.Tag, tree.UnknownTag:
		return join(parentPath, "tag"+strconv.FormatInt(n.Num, 10))
	case tree.RecordBatch:
		return parentPath
	}
	return join(parentPath, nodeName(t, i, c))
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

// appendValue writes node i's JSON-native value.
func appendValue(b []byte, t *tree.Tree, i int32) []byte {
	n := &t.Nodes[i]
	switch n.Kind {
	case tree.Array:
		return appendIntOrNull(b, int64(n.Index), !n.Null)
	case tree.Records:
		return appendIntOrNull(b, int64(len(t.Data(i))), !n.Null)
	case tree.Length:
		if n.Wire == tree.WireUvarint {
			return strconv.AppendInt(b, max(n.Num+1, 0), 10)
		}
		return strconv.AppendInt(b, n.Num, 10)
	case tree.Element:
		if t.Struct(i) != nil {
			return append(b, "null"...)
		}
		return appendScalar(b, n, t.Data(i))
	case tree.Field, tree.Presence, tree.TagCount, tree.TagNumber, tree.TagSize, tree.BatchField, tree.FrameField, tree.Raw:
		return appendScalar(b, n, t.Data(i))
	case tree.TagSection:
		if n.End == i+1 {
			return append(b, '0')
		}
	}
	return append(b, "null"...)
}

// appendScalar writes leaf n's value; d is its contents (Tree.Data).
func appendScalar(b []byte, n *tree.Node, d []byte) []byte {
	switch n.Wire {
	case tree.WireBool:
		return strconv.AppendBool(b, n.Num != 0)
	case tree.WireFloat64:
		f := math.Float64frombits(uint64(n.Num))
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return appendJSONString(b, strconv.FormatFloat(f, 'g', -1, 64))
		}
		return strconv.AppendFloat(b, f, 'g', -1, 64)
	case tree.WireUUID:
		return appendJSONString(b, uuidText(d))
	case tree.WireString, tree.WireCompactString:
		if n.Null {
			return append(b, "null"...)
		}
		return appendJSONString(b, string(d))
	case tree.WireBytes, tree.WireCompactBytes, tree.WireVarBytes, tree.WireRaw:
		if n.Null {
			return append(b, "null"...)
		}
		b = append(b, '"')
		b = hex.AppendEncode(b, d)
		return append(b, '"')
	}
	return strconv.AppendInt(b, n.Num, 10)
}

func appendIntOrNull(b []byte, v int64, ok bool) []byte {
	if !ok {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, v, 10)
}

func appendStringOrNull(b []byte, s string, ok bool) []byte {
	if !ok {
		return append(b, "null"...)
	}
	return appendJSONString(b, s)
}

// appendJSONString writes s as a JSON string: quotes, backslashes and
// control characters escaped, invalid UTF-8 replaced by U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	for k := 0; k < len(s); {
		ch := s[k]
		if ch < utf8.RuneSelf {
			switch {
			case ch == '"' || ch == '\\':
				b = append(b, '\\', ch)
			case ch < 0x20:
				b = append(b, `\u00`...)
				b = append(b, hexDigits[ch>>4], hexDigits[ch&15])
			default:
				b = append(b, ch)
			}
			k++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[k:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[k:k+size]...)
		}
		k += size
	}
	return append(b, '"')
}
