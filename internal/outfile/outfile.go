// Package outfile writes the files the inspector produces (recordings,
// exports, reports) without harming what their paths already name.
//
// [Write] replaces a regular file atomically: it writes a temporary file
// the inspector created in the same folder and renames it over the
// target, so a failed or killed write never leaves half a file behind.
// Anything else a path may name is left as it is: a device (/dev/null,
// /dev/stdout) or a named pipe is opened and written through, never
// replaced by a regular file; a symbolic link is followed and its target
// written, the link itself never removed nor replaced. Nothing but the
// temporary file is ever removed. [Check] says, before a run starts,
// whether a later [Write] to a path can work.
package outfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// PrivateMode (0600) is the permission of a new file: what a run
// recorded may be private to the person who ran it. A file that exists
// keeps its own.
const PrivateMode os.FileMode = 0o600

// Write fills the file at path with what write writes. A regular file
// (or a new one) is replaced atomically through a temporary file in the
// same folder and keeps its permission (a new one gets [PrivateMode]); a
// device or named pipe is written through in place; a symbolic link is
// followed. On failure the path names what it named before, untouched
// when that was a regular file (a device or pipe may have taken part of
// the output).
func Write(path string, write func(io.Writer) error) error {
	target, fi, err := resolve(path)
	if err != nil {
		return err
	}
	if fi != nil && !fi.Mode().IsRegular() {
		return writeThrough(target, fi, write)
	}
	mode := PrivateMode
	if fi != nil {
		mode = fi.Mode().Perm()
	}
	return replace(target, mode, write)
}

// Check says why a later [Write] to path cannot work, or nil. It
// creates nothing that stays and opens no device or pipe (opening a
// pipe blocks until it has a reader): a folder is refused, a dangling
// symbolic link too, a device or pipe must grant write permission, an
// existing regular file must open for writing, and a new file's folder
// must exist and take a new file.
func Check(path string) error {
	target, fi, err := resolve(path)
	if err != nil {
		return err
	}
	if fi != nil {
		if fi.IsDir() {
			return errors.New("that is a folder; name a file in it, as in " + filepath.Join(path, "run.json"))
		}
		if !fi.Mode().IsRegular() {
			return checkSpecial(target, fi)
		}
		f, err := os.OpenFile(target, os.O_WRONLY, 0) // no O_TRUNC: it stays as it is
		if err != nil {
			return fmt.Errorf("the file exists and cannot be written: %v", unwrapPath(err))
		}
		f.Close()
		// It is replaced through a new file in its folder.
		return checkFolder(filepath.Dir(target))
	}
	return checkFolder(filepath.Dir(target))
}

// resolve follows path's symbolic links to what they name: the path to
// write and its file info (nil when nothing is there yet). A link whose
// target is missing is refused: creating a file at the end of a chain of
// links the user may not have meant is a guess.
func resolve(path string) (string, os.FileInfo, error) {
	li, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		// The folder check says what is wrong with the path.
		return path, nil, nil
	}
	if err != nil {
		return "", nil, fmt.Errorf("cannot look at the file: %v", unwrapPath(err))
	}
	if li.Mode()&fs.ModeSymlink == 0 {
		return path, li, nil
	}
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		link, _ := os.Readlink(path)
		return "", nil, fmt.Errorf("it is a symbolic link to %s, which cannot be reached (%v); the link is left as it is: fix it, or name another file", link, unwrapPath(err))
	}
	fi, err := os.Stat(target)
	if errors.Is(err, fs.ErrNotExist) {
		return target, nil, nil
	}
	if err != nil {
		return "", nil, fmt.Errorf("cannot look at %s (the link's target): %v", target, unwrapPath(err))
	}
	return target, fi, nil
}

// replace writes a new regular file at path through a temporary file
// renamed over it once complete and synced.
func replace(path string, mode os.FileMode, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("cannot write in the folder %s: %v", filepath.Dir(path), unwrapPath(err))
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name()) // the temporary file this call created, nothing else
		}
	}()
	if err := write(tmp); err != nil {
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	done = true
	return nil
}

// writeThrough writes into a device or named pipe as it is: no
// truncation, no creation, no removal.
func writeThrough(path string, fi os.FileInfo, write func(io.Writer) error) error {
	if fi.Mode()&fs.ModeSocket != 0 {
		return errors.New("it is a socket, which cannot be written as a file; name a file")
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("cannot open it for writing: %v", unwrapPath(err))
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// checkFolder says why a new file cannot be made in dir, or nil; the
// probe it makes is removed at once.
func checkFolder(dir string) error {
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
