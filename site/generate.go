package site

import (
	"bufio"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
)

// Stats says what Generate wrote.
type Stats struct {
	// Files and Bytes count the files written and their total size.
	Files int
	Bytes int64
}

// countWriter counts the bytes written through it.
type countWriter struct {
	f *os.File
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.f.Write(p)
	c.n += int64(n)
	return n, err
}

// Generate writes every page and asset of the site under dir (created
// when missing; files already there are overwritten, others left alone),
// rendering on up to workers goroutines (GOMAXPROCS when workers < 1).
func (s *Site) Generate(dir string, workers int) (Stats, error) {
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	dirs := map[string]bool{}
	for _, p := range s.paths {
		d := path.Dir(p)
		if !dirs[d] {
			dirs[d] = true
			if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(d)), 0o755); err != nil {
				return Stats{}, err
			}
		}
	}
	var (
		next     atomic.Int64
		total    atomic.Int64
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			bw := bufio.NewWriterSize(nil, 64<<10)
			for {
				i := int(next.Add(1) - 1)
				if i >= len(s.paths) {
					return
				}
				p := s.paths[i]
				n, err := s.writeFile(filepath.Join(dir, filepath.FromSlash(p)), p, bw)
				total.Add(n)
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = fmt.Errorf("writing %s: %w", p, err)
					}
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	return Stats{Files: len(s.paths), Bytes: total.Load()}, firstErr
}

func (s *Site) writeFile(name, p string, bw *bufio.Writer) (int64, error) {
	f, err := os.Create(name)
	if err != nil {
		return 0, err
	}
	cw := &countWriter{f: f}
	bw.Reset(cw)
	err = s.Render(bw, p)
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return cw.n, err
}
