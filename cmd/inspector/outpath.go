package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/fanout-inspector/inspector/internal/outfile"
)

// outputFile is a file a subcommand will write once it is done: the flag
// that names it and its path ("" when the flag was not given).
type outputFile struct{ flag, path string }

// fresh says whether the file must not exist yet: a journal is never
// overwritten ([recorder.OpenJournal]).
func (o outputFile) fresh() bool { return o.flag == "--journal" }

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
		if err := checkOutputPath(o); err != nil {
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

// checkOutputPath says why path cannot be written as a file, or nil
// ([outfile.Check]). It creates nothing that stays and opens no device or
// pipe; a journal (fresh) must not exist yet, since one is never
// overwritten.
func checkOutputPath(o outputFile) error {
	if o.fresh() {
		if _, err := os.Lstat(o.path); err == nil {
			return errors.New("it already exists, and a journal is never overwritten: choose another name, or remove it")
		}
	}
	return outfile.Check(o.path)
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
