package bundle

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// maxFileSize bounds the size of one spec file read from an archive, as a
// guard against corrupt or hostile archives. Real spec files are a few KiB.
const maxFileSize = 16 << 20

// ReadPath reads spec files from the file system:
//
//   - a directory: every *.json file below it, recursively, in lexical
//     order; Source is the directory as given and Path is relative to it;
//   - a file named *.jar or *.zip: its *.json entries, in archive order;
//     if some of them lie in a "common" directory (as in Kafka's jars, e.g.
//     common/message/ or clients/src/main/resources/common/message/), only
//     those are read, else all of them. Source is the archive as given and
//     Path is the entry name;
//   - any other file, whatever its extension (a draft may be a .txt): that
//     file alone, with Source the path as given and Path its base name.
//
// The ".json" match ignores case. Reading a directory or archive that holds
// no spec file is an error. Errors name the path.
func ReadPath(path string) ([]File, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, pathError(path, err)
	}
	switch {
	case info.IsDir():
		return readDir(path)
	case hasExt(path, ".jar") || hasExt(path, ".zip"):
		return readArchive(path)
	default:
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, pathError(path, err)
		}
		return []File{{Source: path, Path: filepath.Base(path), Data: data}}, nil
	}
}

// pathError says err of path as "nodir: no such file or directory" (not
// "stat nodir: …"); errors.Is still finds fs.ErrNotExist and the others.
func pathError(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("%s: %w", path, err)
}

// hasExt reports whether name ends in ext, ignoring case.
func hasExt(name, ext string) bool {
	return len(name) >= len(ext) && strings.EqualFold(name[len(name)-len(ext):], ext)
}

func readDir(dir string) ([]File, error) {
	var files []File
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !hasExt(p, ".json") {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files = append(files, File{Source: dir, Path: filepath.ToSlash(rel), Data: data})
		return nil
	})
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, pathError(pe.Path, err)
		}
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no *.json files found", dir)
	}
	return files, nil
}

func readArchive(name string) ([]File, error) {
	zr, err := zip.OpenReader(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	defer zr.Close()
	var all, common []*zip.File
	for _, f := range zr.File {
		if f.FileInfo().IsDir() || !hasExt(f.Name, ".json") {
			continue
		}
		all = append(all, f)
		if strings.HasPrefix(f.Name, "common/") || strings.Contains(f.Name, "/common/") {
			common = append(common, f)
		}
	}
	if len(common) > 0 {
		all = common
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("%s: no *.json entries found", name)
	}
	files := make([]File, 0, len(all))
	for _, f := range all {
		data, err := readEntry(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", name, f.Name, err)
		}
		files = append(files, File{Source: name, Path: f.Name, Data: data})
	}
	return files, nil
}

func readEntry(f *zip.File) ([]byte, error) {
	if f.UncompressedSize64 > maxFileSize {
		return nil, fmt.Errorf("entry too large (%d bytes)", f.UncompressedSize64)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, maxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxFileSize {
		return nil, fmt.Errorf("entry too large (over %d bytes)", maxFileSize)
	}
	return data, nil
}
