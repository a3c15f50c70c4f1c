//go:build unix

package outfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestWriteLeavesWhatThePathNames: a regular file is replaced with its
// mode kept, a new one is private, a link is followed and stays a link,
// and a failed write leaves the old file and no temporary file.
func TestWriteLeavesWhatThePathNames(t *testing.T) {
	dir := t.TempDir()
	hello := func(w io.Writer) error { _, err := io.WriteString(w, "hello"); return err }

	old := filepath.Join(dir, "old.txt")
	os.WriteFile(old, []byte("old"), 0o644)
	if err := Write(old, hello); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(old); string(data) != "hello" {
		t.Errorf("old.txt holds %q", data)
	}
	if fi, _ := os.Stat(old); fi.Mode().Perm() != 0o644 {
		t.Errorf("old.txt has mode %o, want its 644 kept", fi.Mode().Perm())
	}

	fresh := filepath.Join(dir, "new.txt")
	if err := Write(fresh, hello); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(fresh); fi.Mode().Perm() != PrivateMode {
		t.Errorf("new.txt has mode %o, want %o", fi.Mode().Perm(), PrivateMode)
	}

	link := filepath.Join(dir, "link")
	os.Symlink("old.txt", link)
	if err := Write(link, func(w io.Writer) error { _, err := io.WriteString(w, "via link"); return err }); err != nil {
		t.Fatal(err)
	}
	if to, err := os.Readlink(link); err != nil || to != "old.txt" {
		t.Errorf("the link points to %q (%v)", to, err)
	}
	if data, _ := os.ReadFile(old); string(data) != "via link" {
		t.Errorf("the link's target holds %q", data)
	}

	boom := errors.New("boom")
	if err := Write(old, func(w io.Writer) error { io.WriteString(w, "half"); return boom }); !errors.Is(err, boom) {
		t.Errorf("a failed write gave %v", err)
	}
	if data, _ := os.ReadFile(old); string(data) != "via link" {
		t.Errorf("a failed write changed the file: %q", data)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("a temporary file was left: %s", e.Name())
		}
	}
}

// TestWriteThroughAPipe: a FIFO gets the bytes and stays a FIFO; a write
// that fails half-way does not remove it.
func TestWriteThroughAPipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		data, _ := io.ReadAll(f)
		f.Close()
		got <- string(data)
	}()
	boom := errors.New("boom")
	err := Write(fifo, func(w io.Writer) error { io.WriteString(w, "part"); return boom })
	if !errors.Is(err, boom) {
		t.Errorf("got %v", err)
	}
	if data := <-got; data != "part" {
		t.Errorf("the reader got %q", data)
	}
	fi, err := os.Lstat(fifo)
	if err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO is gone or replaced: %v %v", fi, err)
	}
}

// TestCheck refuses a folder, a dangling link and a missing folder, and
// accepts a device it may write.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	dangling := filepath.Join(dir, "dangling")
	os.Symlink("nowhere/x.json", dangling)
	for _, tc := range []struct{ path, want string }{
		{dir, "that is a folder"},
		{dangling, "symbolic link to nowhere/x.json"},
		{filepath.Join(dir, "missing", "x.json"), "does not exist"},
		{"/dev/null", ""},
		{filepath.Join(dir, "x.json"), ""},
	} {
		err := Check(tc.path)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("Check(%s) = %v", tc.path, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("Check(%s) = %v, want it to say %q", tc.path, err, tc.want)
		}
	}
	if _, err := os.Lstat(dangling); err != nil {
		t.Errorf("the dangling link was removed: %v", err)
	}
}
