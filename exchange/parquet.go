package exchange

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/parquet-go/parquet-go"
)

// ParquetOptions configure a ParquetDir.
type ParquetOptions struct {
	// MaxRows is the most records one file holds before the next is
	// started (1,000,000 when 0).
	MaxRows int64
	// MaxAge is how long a file stays open before it is closed and the
	// next started, so that engines see the records of a long run (0:
	// only MaxRows and Close end a file).
	MaxAge time.Duration
	// Prefix starts every file name ("exchanges" when "").
	Prefix string
	// Now is the clock that names the files (time.Now when nil).
	Now func() time.Time
}

// ParquetDir writes Records to Parquet files in a directory: one schema
// (Record's parquet tags, docs/exchanges.md), files named
// PREFIX-20260102T030405.000000Z-1.parquet by the time they were started
// and their number. A file being written is named with a further ".tmp"
// and renamed when it is whole, so that a glob of *.parquet only ever
// reads whole files. Safe for concurrent use.
type ParquetDir struct {
	mu     sync.Mutex
	dir    string
	o      ParquetOptions
	f      *os.File
	w      *parquet.GenericWriter[Record]
	rows   int64
	opened time.Time
	n      int
	files  []string
	err    error
	stop   chan struct{}
	done   chan struct{}
	once   sync.Once
}

// OpenParquetDir makes dir (and its parents) when missing and returns
// the writer of its files; the first file is started at the first Write.
func OpenParquetDir(dir string, o ParquetOptions) (*ParquetDir, error) {
	if o.MaxRows <= 0 {
		o.MaxRows = 1_000_000
	}
	if o.Prefix == "" {
		o.Prefix = "exchanges"
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("parquet: %w", err)
	}
	p := &ParquetDir{dir: dir, o: o, stop: make(chan struct{}), done: make(chan struct{})}
	if o.MaxAge > 0 {
		go p.roller()
	} else {
		close(p.done)
	}
	return p, nil
}

// roller ends the open file once it is MaxAge old.
func (p *ParquetDir) roller() {
	defer close(p.done)
	tk := time.NewTicker(min(p.o.MaxAge, time.Second))
	defer tk.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-tk.C:
			p.mu.Lock()
			if p.w != nil && p.o.Now().Sub(p.opened) >= p.o.MaxAge && p.err == nil {
				p.err = p.finish()
			}
			p.mu.Unlock()
		}
	}
}

// Write adds r to the open file, starting one when none is open and
// ending it at MaxRows. The error is the first of the writer (which then
// writes no more).
func (p *ParquetDir) Write(r *Record) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil {
		return p.err
	}
	if p.w == nil {
		if p.err = p.start(); p.err != nil {
			return p.err
		}
	}
	if _, p.err = p.w.Write([]Record{*r}); p.err != nil {
		return p.err
	}
	p.rows++
	if p.rows >= p.o.MaxRows {
		p.err = p.finish()
	}
	return p.err
}

// start opens the next file (under mu).
func (p *ParquetDir) start() error {
	p.opened = p.o.Now().UTC()
	p.n++
	name := filepath.Join(p.dir, fmt.Sprintf("%s-%s-%d.parquet", p.o.Prefix, p.opened.Format("20060102T150405.000000Z"), p.n))
	f, err := os.OpenFile(name+".tmp", os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("parquet: %w", err)
	}
	p.f, p.rows = f, 0
	p.w = parquet.NewGenericWriter[Record](f, parquet.Compression(&parquet.Zstd), parquet.MaxRowsPerRowGroup(64<<10))
	return nil
}

// finish closes the open file and gives it its name (under mu).
func (p *ParquetDir) finish() error {
	if p.w == nil {
		return nil
	}
	w, f := p.w, p.f
	p.w, p.f = nil, nil
	err := w.Close()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	tmp := f.Name()
	name := tmp[:len(tmp)-len(".tmp")]
	if err == nil {
		err = os.Rename(tmp, name)
	}
	if err != nil {
		return fmt.Errorf("parquet: %s: %w", name, err)
	}
	p.files = append(p.files, name)
	return nil
}

// Files are the whole files written so far.
func (p *ParquetDir) Files() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.files...)
}

// Close ends the open file. A run that wrote no record leaves no file.
// Closing again returns the same error.
func (p *ParquetDir) Close() error {
	p.once.Do(func() { close(p.stop) })
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil {
		return p.err
	}
	p.err = p.finish()
	return p.err
}
