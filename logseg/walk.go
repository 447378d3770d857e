package logseg

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Source is one PATH of a listing and the log files it names.
type Source struct {
	// Path is the PATH as given.
	Path string
	// Dir is set when Path is a directory (Files are what its walk found).
	Dir bool
	// Files are Path itself, or the segments and snapshots of the
	// directory in listing order.
	Files []string
}

// Expand expands each path into a Source: a file is itself (whatever its
// name), and so is "-" (standard input); a directory gives its *.log and *.checkpoint files (regular
// files only), in name order, which is offset order for Kafka's
// zero-padded names, then those of its subdirectories walked the same
// way, partition directories ("topic-2") in the order of topic and
// partition number ("t-2" before "t-10"), other names by name. Symbolic
// links to directories are not followed inside a walk. A path that does
// not exist is an error (os.Stat's); so is a directory that holds no
// segment or snapshot at any depth ("dir X: no log segments (*.log) or
// snapshots (*.checkpoint)").
func Expand(paths []string) ([]Source, error) {
	var out []Source
	for _, p := range paths {
		if p == "-" {
			// Standard input (Options.Stdin): one file.
			out = append(out, Source{Path: p, Files: []string{p}})
			continue
		}
		fi, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			out = append(out, Source{Path: p, Files: []string{p}})
			continue
		}
		files, err := walkDir(p, nil)
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("dir %s: no log segments (*.log) or snapshots (*.checkpoint)", p)
		}
		out = append(out, Source{Path: p, Dir: true, Files: files})
	}
	return out, nil
}

// walkDir appends the log files of dir and of its subdirectories to out
// (see Expand).
func walkDir(dir string, out []string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names, dirs []string
	for _, e := range ents {
		switch n := e.Name(); {
		case e.IsDir():
			dirs = append(dirs, n)
		case e.Type().IsRegular() && (strings.HasSuffix(n, ".log") || strings.HasSuffix(n, ".checkpoint")):
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		out = append(out, filepath.Join(dir, n))
	}
	sort.Slice(dirs, func(i, j int) bool { return partitionLess(dirs[i], dirs[j]) })
	for _, d := range dirs {
		if out, err = walkDir(filepath.Join(dir, d), out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// partitionLess orders directory names as partition directories: by topic,
// then by partition number ("orders-2" before "orders-10"); names that do
// not end in "-N" by name.
func partitionLess(a, b string) bool {
	ta, pa, oka := splitPartition(a)
	tb, pb, okb := splitPartition(b)
	if oka && okb && ta == tb {
		return pa < pb
	}
	if oka && okb {
		return ta < tb
	}
	return a < b
}

// splitPartition splits a partition directory name "topic-N".
func splitPartition(name string) (topic string, partition int64, ok bool) {
	k := strings.LastIndexByte(name, '-')
	if k < 0 {
		return "", 0, false
	}
	n, err := strconv.ParseInt(name[k+1:], 10, 32)
	if err != nil || n < 0 {
		return "", 0, false
	}
	return name[:k], n, true
}

// IsMetadata says whether a file holds KRaft metadata records: a snapshot
// (*.checkpoint), or a file under a __cluster_metadata directory.
func IsMetadata(path string) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	return strings.HasSuffix(path, ".checkpoint") || strings.Contains(filepath.Dir(abs), "__cluster_metadata")
}

// Findings are what a directory Source held when none of its files held a
// record batch (batches is the number its files held): an error naming
// how many files it found, all of them empty or not record batches. None
// for a file Source (its file's Summary.Findings say it) or a directory
// with batches.
func (s Source) Findings(batches int) []Problem {
	if !s.Dir || batches > 0 {
		return nil
	}
	n := "1 file"
	if len(s.Files) != 1 {
		n = strconv.Itoa(len(s.Files)) + " files"
	}
	p := fileProblem(fmt.Sprintf("no record batch in its %s (*.log, *.checkpoint)", n), false)
	p.dir = true
	return []Problem{p}
}
