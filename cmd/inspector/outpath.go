package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// outputFile is a file a subcommand will write once it is done: the flag
// that names it and its path ("" when the flag was not given).
type outputFile struct{ flag, path string }

// checkOutputs says what is wrong with the files a run or report will
// write, before it starts: a typo in --record must not cost the run. Each
// path must name a file (not a folder) in a folder that exists and can be
// written; no two flags may name the same file.
func checkOutputs(outs []outputFile) error {
	seen := map[string]string{}
	for _, o := range outs {
		if o.path == "" {
			continue
		}
		if err := checkOutputPath(o.path); err != nil {
			return fmt.Errorf("%s %s: %v", o.flag, o.path, err)
		}
		abs, err := filepath.Abs(o.path)
		if err != nil {
			abs = o.path
		}
		if other, ok := seen[abs]; ok {
			return fmt.Errorf("%s %s: %s writes that file too; give each output its own file", o.flag, o.path, other)
		}
		seen[abs] = o.flag
	}
	return nil
}

// checkOutputPath says why path cannot be written as a file, or nil. It
// creates nothing that stays: the writability probe is a temporary file,
// removed at once.
func checkOutputPath(path string) error {
	if fi, err := os.Stat(path); err == nil {
		if fi.IsDir() {
			return errors.New("that is a folder; name a file in it, as in " + filepath.Join(path, "run.json"))
		}
		if !fi.Mode().IsRegular() {
			return nil // a device or a pipe (/dev/stdout): opening it here could block
		}
		f, err := os.OpenFile(path, os.O_WRONLY, 0) // no O_TRUNC: it stays as it is
		if err != nil {
			return fmt.Errorf("the file exists and cannot be written: %v", unwrapPath(err))
		}
		f.Close()
		return nil
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("the folder %s does not exist; create it first, or fix the path", dir)
	case err != nil:
		return fmt.Errorf("cannot reach the folder %s: %v", dir, unwrapPath(err))
	case !fi.IsDir():
		return fmt.Errorf("%s is not a folder", dir)
	}
	probe, err := os.CreateTemp(dir, ".inspector-write-check-*")
	if err != nil {
		return fmt.Errorf("cannot write in the folder %s: %v", dir, unwrapPath(err))
	}
	probe.Close()
	os.Remove(probe.Name())
	return nil
}

// unwrapPath drops the path an *fs.PathError repeats, since the message
// names it already.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
