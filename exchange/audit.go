package exchange

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"gopkg.in/natefinch/lumberjack.v2"
)

// AuditOptions configure an Audit log.
type AuditOptions struct {
	// MaxSizeMB is the size in megabytes (MiB) at which the file is
	// rotated: renamed with a timestamp (lumberjack's NAME-TIME.EXT) and
	// a new one started (100 when 0).
	MaxSizeMB int
	// MaxBackups is how many rotated files are kept (0: all).
	MaxBackups int
	// FlushEvery is how often buffered lines are written out (1s when 0).
	// Close writes out the rest.
	FlushEvery time.Duration
}

// Audit writes one JSON line per Record (Record's json tags) to a file
// rotated by size, or to a writer (standard output). Lines are buffered
// and written out at least every FlushEvery, and at Close. Safe for
// concurrent use.
type Audit struct {
	mu sync.Mutex
	// buf holds whole lines, written to w in one Write each time it
	// would pass bufSize (so that a rotation never splits a line).
	buf    []byte
	w      io.Writer
	closer io.Closer
	err    error
	stop   chan struct{}
	done   chan struct{}
	once   sync.Once
	closed error
}

// OpenAudit opens the audit log at path ("-" writes to stdout, never
// rotated or closed). The file is created (mode 0600: who did what is not
// for everyone) or appended to; an error names it.
func OpenAudit(path string, stdout io.Writer, o AuditOptions) (*Audit, error) {
	if o.MaxSizeMB <= 0 {
		o.MaxSizeMB = 100
	}
	if o.FlushEvery <= 0 {
		o.FlushEvery = time.Second
	}
	a := &Audit{stop: make(chan struct{}), done: make(chan struct{})}
	if path == "-" {
		a.w = stdout
	} else {
		// Open it now, so that a path that cannot be written is an error
		// at start, not at the first exchange.
		f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			return nil, fmt.Errorf("audit log: %w", err)
		}
		f.Close()
		lj := &lumberjack.Logger{Filename: path, MaxSize: o.MaxSizeMB, MaxBackups: o.MaxBackups}
		a.w, a.closer = lj, lj
	}
	go a.flusher(o.FlushEvery)
	return a, nil
}

// flusher writes the buffer out every d until Close.
func (a *Audit) flusher(d time.Duration) {
	defer close(a.done)
	tk := time.NewTicker(d)
	defer tk.Stop()
	for {
		select {
		case <-a.stop:
			return
		case <-tk.C:
			a.Flush()
		}
	}
}

// Write writes r's line. The error is the first write error of the log
// (which then writes no more).
func (a *Audit) Write(r *Record) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.err != nil {
		return a.err
	}
	n := len(a.buf)
	a.buf = append(r.AppendJSON(a.buf), '\n')
	if len(a.buf) >= bufSize && n > 0 {
		// Write out the lines before this one, whole.
		if _, a.err = a.w.Write(a.buf[:n]); a.err == nil {
			a.buf = a.buf[:copy(a.buf, a.buf[n:])]
		}
	}
	return a.err
}

// Flush writes out the lines buffered.
func (a *Audit) Flush() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.err == nil {
		a.err = a.flush()
	}
	return a.err
}

// bufSize is the most bytes of lines buffered.
const bufSize = 64 << 10

// flush writes the buffered lines (under mu).
func (a *Audit) flush() error {
	if len(a.buf) == 0 {
		return nil
	}
	_, err := a.w.Write(a.buf)
	a.buf = a.buf[:0]
	return err
}

// Close writes out the lines buffered and closes the file. Closing again
// returns the same error.
func (a *Audit) Close() error {
	a.once.Do(func() {
		close(a.stop)
		<-a.done
		a.closed = a.Flush()
		if a.closer != nil {
			if err := a.closer.Close(); a.closed == nil {
				a.closed = err
			}
		}
	})
	return a.closed
}
