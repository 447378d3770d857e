// Package format is the layout of an embedded spec bundle: one JSON
// document, gzip-compressed, that cmd/kwire-specgen writes and package
// spec/bundle reads. It holds no code, so both can import it (package
// bundle embeds the bundles and cannot be imported by the generator that
// writes them).
package format

// Document is a bundle: the spec files of one Kafka release with their
// provenance and the Apache-2.0 attribution.
type Document struct {
	GeneratedBy string     `json:"generated_by"`
	Notice      string     `json:"notice"`
	Release     string     `json:"release"`
	Artifacts   []Artifact `json:"artifacts"`
	Files       []File     `json:"files"`
}

// Artifact is one Maven Central jar the files came from: its coordinate,
// download URL, sha256 and how many spec files it gave.
type Artifact struct {
	Coord  string `json:"coord"`
	URL    string `json:"url"`
	SHA256 string `json:"sha256"`
	Files  int    `json:"files"`
}

// File is one spec file, verbatim (so file:line:col positions are the
// jar's), with its artifact, path in the jar and sha256.
type File struct {
	Artifact string `json:"artifact"`
	Path     string `json:"path"`
	SHA256   string `json:"sha256"`
	Text     string `json:"text"`
}
