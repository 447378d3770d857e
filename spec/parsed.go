package spec

import (
	"github.com/tailscale/hujson"

	"github.com/kwire/kwire/spec/bundle"
)

// unit is one spec object of a file, as the loader read it.
type unit struct {
	msg  *Message  // nil when its JSON did not parse
	errs ErrorList // the object's own problems
	p    *parser
}

// parsedFile is a file read as a draft: its objects, the problems of the
// file as a whole (text outside the objects, missing braces, JSON syntax
// that Kafka rejects but that could be read past), and every unambiguous
// fix of the file's problems.
type parsedFile struct {
	name  string
	src   []byte
	units []*unit
	errs  ErrorList
	fixes []*Fix
	// dropped are the positions of the objects whose JSON is beyond
	// repair (they have no unit).
	dropped []Pos
}

// parseFile reads every spec object of a file (see scanDraft) with the
// loader. The file's own problems do not keep its objects from loading;
// an object's problems keep that object from loading. inSet says that the
// file is one of a set of spec files (see scanDraft).
func parseFile(name string, src []byte, inSet bool) *parsedFile {
	d := scanDraft(name, src, inSet)
	pf := &parsedFile{name: name, src: src, errs: d.errs, fixes: d.fixes}
	lines := lineStarts(src)
	for _, off := range d.dropped {
		pf.dropped = append(pf.dropped, posIn(name, lines, off))
	}
	for _, pc := range d.pieces {
		p := newParser(name, pc.buf)
		p.src, p.lines = src, lines
		if &pc.buf[0] != &src[0] || len(pc.buf) != len(src) {
			p.pc = pc
		}
		m := p.parseFile()
		if m != nil {
			p.resolve(m)
		}
		p.errs.Sort()
		pf.units = append(pf.units, &unit{msg: m, errs: p.errs, p: p})
		pf.fixes = append(pf.fixes, p.fixes...)
	}
	if len(d.pieces) == 0 && len(d.errs) == 0 {
		pf.errs = append(pf.errs, &Error{Pos: Pos{File: name, Line: 1, Col: 1}, Severity: SeverityError, Rule: "json-syntax", Msg: "the file holds no spec object (Kafka's generator needs one JSON object)"})
	}
	return pf
}

// ParsedFile is one spec file as the loader read it, for tools that check
// the text itself (package spec/lint): its spec objects, each with the JSON
// it was read from and where that JSON lies in the file, and the
// unambiguous fixes of the problems found. A Set holds the messages; a
// ParsedFile holds how they were written.
type ParsedFile struct {
	// Name is how problems name the file (see Pos.File).
	Name string
	File bundle.File
	// Objects are the file's spec objects whose JSON could be read, in
	// file order (an object beyond repair has none: Set.Unloaded).
	Objects []*Object
	// Fixes are the unambiguous corrections of the problems of the file
	// and of its objects, in the order they were found; each Fix's edits
	// are offsets of File.Data.
	Fixes []*Fix
}

// Object is one spec object of a file, as the loader read it.
type Object struct {
	// Message is the object's message as far as it could be built, nil
	// when its JSON did not parse; it loaded into the Set only when
	// Problems has no error.
	Message *Message
	// Problems are the object's own problems (the file's are among the
	// ErrorList of Parse).
	Problems ErrorList
	// JSON is the object's parsed JSON, nil when it did not parse. Its
	// offsets are of the loader's copy of the object (a draft's object is
	// read from a repaired copy), not of the file: Pos and Offset convert.
	JSON *hujson.Value
	// Fixes are the fixes of the object's problems (ParsedFile.Fixes
	// holds them too).
	Fixes []*Fix

	p *parser
}

// Pos is the file position (1-based line and column) of offset off of
// JSON.
func (o *Object) Pos(off int) Pos { return o.p.pos(off) }

// Offset is the offset of JSON at position pos of the file (0 when pos is
// not in it): Offset(m.Pos) of a Message or Field is where its object
// starts.
func (o *Object) Offset(pos Pos) int { return o.p.offOf(pos) }

// Parse is NewSet, also returning every file as parsed, the objects that
// did not load for their problems included, in the order of files.
func Parse(files []bundle.File) (*Set, ErrorList, []*ParsedFile) {
	s, all, parsed := buildSet(files)
	out := make([]*ParsedFile, len(parsed))
	for i, pf := range parsed {
		out[i] = exported(pf, files[i])
	}
	return s, all, out
}

// ParseFile reads f on its own, as a single file given by the user (not one
// of a set of spec files), without building a Set.
func ParseFile(f bundle.File) *ParsedFile {
	return exported(parseFile(fileName(f), f.Data, false), f)
}

func exported(pf *parsedFile, f bundle.File) *ParsedFile {
	x := &ParsedFile{Name: pf.name, File: f, Fixes: pf.fixes}
	for _, u := range pf.units {
		x.Objects = append(x.Objects, &Object{Message: u.msg, Problems: u.errs, JSON: u.p.root, Fixes: u.p.fixes, p: u.p})
	}
	return x
}
