package proxy

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/spec"
	"github.com/kwire/kwire/spec/bundle"
	"github.com/kwire/kwire/tree"
)

// specAddressStructs walks every response of the embedded release and
// returns the paths (as AddressField.Struct) of the structs with fields
// Host and Port, each with the node id field found in the struct, or in
// the struct holding it ("^NodeId").
func specAddressStructs(t *testing.T, release string) map[string]string {
	s, err := spec.Embedded(release)
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]string{}
	idField := func(fs []*spec.Field) string {
		for _, f := range fs {
			switch f.Name {
			case "NodeId", "BrokerId", "LeaderId", "ReplicaId":
				return f.Name
			}
		}
		return ""
	}
	var walk func(path string, fs, parent []*spec.Field)
	walk = func(path string, fs, parent []*spec.Field) {
		var host, port bool
		for _, f := range fs {
			host = host || f.Name == "Host"
			port = port || f.Name == "Port"
		}
		if host && port {
			id := idField(fs)
			if id == "" && idField(parent) != "" {
				id = "^" + idField(parent)
			}
			found[path] = id
		}
		for _, f := range fs {
			if !f.Type.IsStructLike() {
				continue
			}
			sub := f.Fields
			if len(sub) == 0 && f.Type.Struct != nil {
				sub = f.Type.Struct.Fields // a common struct
			}
			walk(path+"."+f.Name, sub, fs)
		}
	}
	for _, m := range s.Messages {
		if m.Type == spec.Response {
			walk(m.Name, m.Root.Fields, nil)
		}
	}
	return found
}

// Every struct of a response that holds a Host and a Port, in both
// embedded releases, is rewritten (with the node id field the specs give
// it) or is known not to be a broker's address.
func TestAddressFieldsAreEveryHostAndPortOfTheSpecs(t *testing.T) {
	releases := bundle.Releases()
	if len(releases) < 2 {
		t.Fatalf("embedded releases %v", releases)
	}
	covered := map[string]string{}
	for _, f := range brokerAddressFields {
		id := f.Node
		if f.ParentNode {
			id = "^" + id
		}
		covered[f.Struct] = id
	}
	seen := map[string]bool{}
	for _, r := range releases {
		for path, id := range specAddressStructs(t, r) {
			seen[path] = true
			if why, ok := notBrokerAddressFields[path]; ok {
				t.Logf("%s %s: not rewritten: %s", r, path, why)
				continue
			}
			got, ok := covered[path]
			switch {
			case !ok:
				t.Errorf("%s: %s holds a Host and a Port but is not rewritten (node id field %q)", r, path, id)
			case got != id:
				t.Errorf("%s: %s is rewritten with node id %q, the specs say %q", r, path, got, id)
			}
		}
	}
	for path := range covered {
		if !seen[path] {
			t.Errorf("%s is rewritten but no embedded release has it", path)
		}
	}
	for path := range notBrokerAddressFields {
		if !seen[path] {
			t.Errorf("%s is listed as not a broker but no embedded release has it", path)
		}
	}
	// docs/proxy.md lists them all.
	doc, err := os.ReadFile("../docs/proxy.md")
	if err != nil {
		t.Fatal(err)
	}
	for path := range seen {
		if !strings.Contains(string(doc), "`"+path+"`") {
			t.Errorf("docs/proxy.md does not name %s", path)
		}
	}
	var want []string
	for path := range seen {
		if _, ok := notBrokerAddressFields[path]; !ok {
			want = append(want, path)
		}
	}
	slices.Sort(want)
	if len(want) != 14 {
		t.Errorf("%d broker address structs:\n%s", len(want), strings.Join(want, "\n"))
	}
}

// addressJSON writes the converter JSON of the struct fields fs at version
// v with every field at a plain value and, along steps, one element (or
// the struct) leading to the struct of the address, whose Host, Port and
// node id (idField; in the holding struct when parent) are host, port and
// node.
func addressJSON(b *strings.Builder, fs []*spec.Field, v int16, steps []string, f AddressField, node int, host string, port int) {
	b.WriteByte('{')
	n := 0
	for _, fd := range fs {
		if !fd.PresentIn(v) {
			continue
		}
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		fmt.Fprintf(b, "%q:", tree.AppendJSONKey(nil, fd.Name))
		last := len(steps) == 0
		holder := len(steps) == 1 && f.ParentNode
		switch {
		case len(steps) > 0 && fd.Name == steps[0]:
			sub := fd.Fields
			if len(sub) == 0 && fd.Type.Struct != nil {
				sub = fd.Type.Struct.Fields
			}
			if fd.Type.Kind == spec.KindArray {
				b.WriteByte('[')
			}
			addressJSON(b, sub, v, steps[1:], f, node, host, port)
			if fd.Type.Kind == spec.KindArray {
				b.WriteByte(']')
			}
		case last && fd.Name == "Host":
			fmt.Fprintf(b, "%q", host)
		case last && fd.Name == "Port":
			fmt.Fprintf(b, "%d", port)
		case (last && !f.ParentNode || holder) && fd.Name == f.Node:
			fmt.Fprintf(b, "%d", node)
		case fd.Type.Kind == spec.KindArray:
			b.WriteString("[]")
		case fd.Type.Kind == spec.KindStruct:
			sub := fd.Fields
			if len(sub) == 0 && fd.Type.Struct != nil {
				sub = fd.Type.Struct.Fields
			}
			addressJSON(b, sub, v, nil, AddressField{}, 0, "", 0)
		case fd.Type.Kind == spec.KindBool:
			b.WriteString("false")
		case fd.Type.Kind == spec.KindFloat64:
			b.WriteString("0.0")
		case fd.Type.Kind == spec.KindUUID:
			b.WriteString(`"AAAAAAAAAAAAAAAAAAAAAA"`)
		case fd.Type.Kind == spec.KindString, fd.Type.Kind == spec.KindBytes:
			b.WriteString(`""`)
		case fd.Type.Kind == spec.KindRecords:
			b.WriteString("null")
		default:
			b.WriteString("0")
		}
	}
	b.WriteByte('}')
}

// The rewriter sets the address of every struct of brokerAddressFields:
// a response of each, at every version that has it, with broker 7 at
// broker-x.internal:9092 comes out with the proxy's host and broker 7's
// listener port, broker 7 learned at its address, everything else equal.
func TestRewriterCoversEveryAddressField(t *testing.T) {
	c := codec.New(testSet)
	p, err := New(Options{Listen: "127.0.0.1:0", Upstream: "127.0.0.1:1", Codec: c, RewriteAdvertised: true, Advertise: "proxy.example:19092"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { p.Close(); p.acceptWG.Wait() }()
	for _, f := range brokerAddressFields {
		steps := strings.Split(f.Struct, ".")
		m := testSet.Message(steps[0])
		versions := 0
		for v := m.ValidVersions.Lo; v <= m.ValidVersions.Hi; v++ {
			if !hasSteps(m.Root.Fields, v, steps[1:]) {
				if p.plan.wants(m.APIKey, v) && len(p.plan[m.APIKey].fields) == 1 {
					t.Errorf("%s v%d is held for rewriting but has no address", f.Struct, v)
				}
				continue
			}
			if !p.plan.wants(m.APIKey, v) {
				t.Errorf("%s v%d is not held for rewriting", f.Struct, v)
			}
			versions++
			var b strings.Builder
			addressJSON(&b, m.Root.Fields, v, steps[1:], f, 7, "broker-x.internal", 9092)
			orig := encodeFrame(t, c, m.BaseName(), false, v, 5, "", b.String())
			tr, err := c.DecodeResponse(orig, m, v)
			if err != nil {
				t.Fatalf("%s v%d: %v", f.Struct, v, err)
			}
			out, err := rewriteTree(p, nil, tr, p.plan[m.APIKey].fields)
			if err != nil {
				t.Fatalf("%s v%d: %v", f.Struct, v, err)
			}
			port := portOf(t, p.Brokers()[7].Listen)
			b.Reset()
			addressJSON(&b, m.Root.Fields, v, steps[1:], f, 7, "proxy.example", port)
			if want := encodeFrame(t, c, m.BaseName(), false, v, 5, "", b.String()); !bytes.Equal(out, want) {
				t.Errorf("%s v%d:\n got %x\nwant %x", f.Struct, v, out, want)
			}
		}
		if versions == 0 {
			t.Errorf("%s: no version", f.Struct)
		}
	}
	if b := p.Brokers()[7]; b.Addr != "broker-x.internal:9092" || len(p.Brokers()) != 1 {
		t.Errorf("brokers %+v", p.Brokers())
	}
}
