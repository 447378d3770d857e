// Package progress draws a bar of bytes read on a terminal's standard
// error while a command reads large inputs, without mixing it into what
// the command prints: writers get the bar cleared first (Output), and the
// next Add draws it again.
package progress

import (
	"io"
	"time"

	"github.com/schollz/progressbar/v3"
)

// Bar is a progress bar, or nothing: the methods of a nil *Bar do nothing
// (Output returns its writer).
type Bar struct {
	bar    *progressbar.ProgressBar
	stderr io.Writer
	// shared is set when standard output is on the same terminal: the bar
	// is cleared before each write to either.
	shared bool
}

// New starts a bar on stderr (a terminal) for reading total bytes,
// described as "reading", with the bytes read and the rate; it is redrawn
// at most every 100 ms and cleared at the end (Done). shared says that
// standard output is a terminal too.
func New(stderr io.Writer, total int64, shared bool) *Bar {
	bar := progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(stderr),
		progressbar.OptionSetDescription("reading"),
		progressbar.OptionShowBytes(true),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)
	return &Bar{bar: bar, stderr: stderr, shared: shared}
}

// Add counts n more bytes read.
func (p *Bar) Add(n int64) {
	if p != nil {
		p.bar.Add64(n)
	}
}

// Output returns w, clearing the bar first when w is the bar's standard
// error or shares its terminal.
func (p *Bar) Output(w io.Writer) io.Writer {
	if p != nil && (w == p.stderr || p.shared) {
		p.bar.Clear()
	}
	return w
}

// Done removes the bar.
func (p *Bar) Done() {
	if p != nil {
		p.bar.Finish()
	}
}
