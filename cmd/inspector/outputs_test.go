//go:build linux

package main

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/fanout-inspector/inspector/recorder"
)

// outputTarget is something an output flag may name that is not a plain
// file: made fresh for each command, and checked to be as it was after.
type outputTarget struct {
	name string
	// make creates the target in dir and returns the path to give the
	// flag, and a check run once the command has ended, given what
	// reached the target (nil when nothing can be read back).
	make func(t *testing.T, dir string) (path string, after func(t *testing.T) []byte)
}

// sameNode checks that path is still the node it was: the same kind,
// device number and inode (a rename over it would change the inode).
func sameNode(t *testing.T, path string) func(t *testing.T) {
	t.Helper()
	var before syscall.Stat_t
	if err := syscall.Lstat(path, &before); err != nil {
		t.Fatal(err)
	}
	return func(t *testing.T) {
		t.Helper()
		var now syscall.Stat_t
		if err := syscall.Lstat(path, &now); err != nil {
			t.Fatalf("%s is gone: %v", path, err)
		}
		if now.Mode != before.Mode || now.Rdev != before.Rdev || now.Ino != before.Ino {
			t.Errorf("%s was replaced: mode %o rdev %d inode %d, was mode %o rdev %d inode %d",
				path, now.Mode, now.Rdev, now.Ino, before.Mode, before.Rdev, before.Ino)
		}
	}
}

// device returns a character device to write to: as root, one made with
// mknod in dir with the numbers of /dev/<name> (a regression that
// replaced it must not take the machine's own /dev/null with it); as
// anyone else the real one, which they cannot replace.
func device(t *testing.T, dir, name string, major, minor uint32) string {
	t.Helper()
	if os.Geteuid() != 0 {
		return "/dev/" + name
	}
	path := filepath.Join(dir, name)
	if err := syscall.Mknod(path, syscall.S_IFCHR|0o666, int(major<<8|minor)); err != nil {
		t.Skipf("mknod: %v", err)
	}
	return path
}

var outputTargets = []outputTarget{
	{"the null device", func(t *testing.T, dir string) (string, func(*testing.T) []byte) {
		path := device(t, dir, "null", 1, 3)
		same := sameNode(t, path)
		return path, func(t *testing.T) []byte { same(t); return nil }
	}},
	{"a FIFO with a reader", func(t *testing.T, dir string) (string, func(*testing.T) []byte) {
		path := filepath.Join(dir, "fifo")
		if err := syscall.Mkfifo(path, 0o600); err != nil {
			t.Fatal(err)
		}
		same := sameNode(t, path)
		got := make(chan []byte, 1)
		go func() {
			// Opening for reading blocks until the inspector opens it
			// for writing.
			f, err := os.Open(path)
			if err != nil {
				got <- nil
				return
			}
			data, _ := io.ReadAll(f)
			f.Close()
			got <- data
		}()
		return path, func(t *testing.T) []byte {
			same(t)
			// The inspector has exited: what it wrote is read to its end
			// at once. (If it never opened the FIFO, the reader stays
			// blocked until the test binary ends.)
			select {
			case data := <-got:
				if len(data) == 0 {
					t.Errorf("the FIFO's reader got nothing")
				}
				return data
			case <-time.After(5 * time.Second):
				t.Errorf("nothing was written to the FIFO")
				return nil
			}
		}
	}},
	{"a symbolic link to a file", func(t *testing.T, dir string) (string, func(*testing.T) []byte) {
		target := filepath.Join(dir, "real.out")
		if err := os.WriteFile(target, []byte("old"), 0o640); err != nil {
			t.Fatal(err)
		}
		link := filepath.Join(dir, "link.out")
		if err := os.Symlink("real.out", link); err != nil {
			t.Fatal(err)
		}
		same := sameNode(t, link)
		return link, func(t *testing.T) []byte {
			same(t)
			if to, err := os.Readlink(link); err != nil || to != "real.out" {
				t.Errorf("the link now points to %q (%v), want real.out", to, err)
			}
			fi, err := os.Stat(target)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != 0o640 {
				t.Errorf("the link's target has mode %o, want its own 640 kept", fi.Mode().Perm())
			}
			data, _ := os.ReadFile(target)
			return data
		}
	}},
}

// TestOutputsNeverClobber aims every kind of output (--record and an
// export of a run, report --save and report --csv) at the null device
// (the machine's own, or as root one made with mknod), a FIFO and a
// symbolic link: each is left as it was, what can be read back is
// the output, and the run's exit says it succeeded.
func TestOutputsNeverClobber(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // where a recording that could not be saved is kept
	saved := filepath.Join(t.TempDir(), "saved.json")
	if r := inspector(t, "run", "--tool", "fanout", "--args", `{"n":3}`, "--record", saved); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	commands := []struct {
		name string
		args func(out string) []string
		// isRecording says whether what was written is a recording
		// (otherwise a CSV with a header).
		isRecording bool
	}{
		{"run --record", func(out string) []string {
			return []string{"run", "--tool", "fanout", "--args", `{"n":3}`, "--record", out}
		}, true},
		{"run --csv", func(out string) []string {
			return []string{"run", "--tool", "fanout", "--args", `{"n":3}`, "--csv", out}
		}, false},
		{"report --save", func(out string) []string { return []string{"report", saved, "--save", out} }, true},
		{"report --csv", func(out string) []string { return []string{"report", saved, "--csv", out} }, false},
	}
	for _, c := range commands {
		for _, target := range outputTargets {
			t.Run(c.name+" to "+target.name, func(t *testing.T) {
				path, after := target.make(t, t.TempDir())
				r := runHostile(t, 30*time.Second, nil, nil, c.args(path)...)
				data := after(t)
				r.check(t, 0, 20*time.Second)
				if data == nil {
					return
				}
				if c.isRecording {
					if _, err := recorder.Load(bytes.NewReader(data)); err != nil {
						t.Errorf("what reached %s is not a recording: %v", path, err)
					}
				} else if !strings.HasPrefix(string(data), "kind,") && !strings.Contains(string(data), "\n") {
					t.Errorf("what reached %s is not the CSV: %.200q", path, data)
				}
			})
		}
	}
}

// TestOutputsRefusedBeforeTheRun: a dangling symbolic link or an
// existing --journal is refused before anything runs, with exit 2, and
// left as it was.
func TestOutputsRefusedBeforeTheRun(t *testing.T) {
	dir := t.TempDir()
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink("missing/run.json", dangling); err != nil {
		t.Fatal(err)
	}
	existing := filepath.Join(dir, "journal.jsonl")
	if err := os.WriteFile(existing, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		path string
		want string
	}{
		{"--record to a dangling link", []string{"run", "--tool", "fanout", "--record", dangling}, dangling, "symbolic link to missing/run.json"},
		{"--journal that exists", []string{"run", "--tool", "fanout", "--journal", existing}, existing, "a journal is never overwritten"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			same := sameNode(t, tc.path)
			r := runHostile(t, 30*time.Second, nil, nil, tc.args...)
			r.check(t, exitUsage, 20*time.Second, tc.want)
			same(t)
		})
	}
	if data, _ := os.ReadFile(existing); string(data) != "keep" {
		t.Errorf("the existing journal now holds %q", data)
	}
}

// TestFailedSaveKeepsTheRun: --record to the full device (every write
// fails with "no space left") leaves the device alone, exits 1 and keeps the
// recording in the journal folder, naming the file it is in.
func TestFailedSaveKeepsTheRun(t *testing.T) {
	full := device(t, t.TempDir(), "full", 1, 7)
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	same := sameNode(t, full)
	r := runHostile(t, 30*time.Second, nil, nil, "run", "--tool", "fanout", "--args", `{"n":3}`, "--record", full)
	r.check(t, exitFailure, 20*time.Second, "no space left on device", "the recording is kept in")
	same(t)
	var kept []string
	filepath.WalkDir(cache, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			kept = append(kept, path)
		}
		return nil
	})
	if len(kept) != 1 {
		t.Fatalf("kept %q, want one recording", kept)
	}
	if !strings.Contains(r.stderr, kept[0]) {
		t.Errorf("stderr does not name %s:\n%s", kept[0], r.stderr)
	}
	snap, err := recorder.LoadFile(kept[0])
	if err != nil {
		t.Fatal(err)
	}
	if n := recorder.Summarize(snap).ToolCalls.Total; n != 1 {
		t.Errorf("the kept recording has %d tool calls, want 1", n)
	}
}

// TestDeepConfig: a repository's .vscode/mcp.json nested three million
// levels deep (6 MB) makes inspector servers and run --server say what
// is wrong with it, in bounded time and memory (parsing it overflowed
// the stack): servers lists it with its error beside the other files
// and exits 1, as for any file it could not read (docs/cli.md); run
// exits 1 too: the server may be in the file that could not be read, so
// the file, not the flag, is what is wrong.
func TestDeepConfig(t *testing.T) {
	env, project := serversTree(t)
	const n = 3_000_000
	deep := "{\"servers\": {\"deep\": {\"args\": " + strings.Repeat("[", n) + strings.Repeat("]", n) + "}}}"
	path := filepath.Join(project, ".vscode", "mcp.json")
	if err := os.WriteFile(path, []byte(deep), 0o644); err != nil {
		t.Fatal(err)
	}
	want := path + ":1:128: objects and arrays nested more than 100 deep"
	for _, tc := range []struct {
		args []string
		code int
	}{{[]string{"servers"}, exitFailure}, {[]string{"run", "--server", "deep", "--list-tools"}, exitFailure}} {
		args := tc.args
		t.Run(args[0], func(t *testing.T) {
			r := runHostileIn(t, project, env, nil, 30*time.Second, nil, nil, args...)
			out := r.stdout + r.stderr
			r.stderr = out // check looks for the message on either
			r.check(t, tc.code, 15*time.Second, want)
			if strings.Contains(out, "stack overflow") {
				t.Errorf("crashed:\n%.2000s", out)
			}
		})
	}
}

// endless is a stream that begins like a recording and never ends.
type endless struct{ started bool }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	if !e.started && len(p) > 0 {
		p[0], e.started = '{', true
	}
	return len(p), nil
}

// TestBoundedReads: report of /dev/zero, report - of a stream that never
// ends, and --args @/dev/zero stop with a clear error, in bounded time
// and memory (each read without bound: 2.9 GB and growing).
func TestBoundedReads(t *testing.T) {
	for _, tc := range []struct {
		name  string
		stdin io.Reader
		args  []string
		code  int
		want  string
	}{
		{"report /dev/zero", nil, []string{"report", "/dev/zero"}, exitFailure, "the file is not JSON (it begins with the byte 0x00"},
		{"report - endless", &endless{}, []string{"report", "-"}, exitFailure, "more than 64 MiB arrived without an end"},
		{"--args @/dev/zero", nil, []string{"run", "--tool", "fanout", "--args", "@/dev/zero"}, exitFailure, "--args @/dev/zero: cannot read the file: more than 16 MiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runHostileIn(t, "", nil, tc.stdin, 60*time.Second, nil, nil, tc.args...)
			r.check(t, tc.code, 20*time.Second, tc.want)
		})
	}
}

// TestSavedAndCSVTextIsClean: a recording whose payload holds invalid
// UTF-8 and whose error text holds NUL and escape bytes is saved by
// report --save as valid UTF-8, and its CSV carries no control bytes.
func TestSavedAndCSVTextIsClean(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "dirty.json")
	data := "{\"format\":\"fanout-inspector-recording\",\"version\":2,\"meta\":{\"title\":\"dirty\",\"created\":\"2026-01-02T03:04:05Z\"},\"now\":2000000,\n" +
		"\"spans\":[\n{\"id\":1,\"session\":\"s1\",\"direction\":\"outgoing\",\"method\":\"tools/call\",\"kind\":\"tool\",\"request_id\":\"1\",\"name\":\"x\"," +
		"\"received\":0,\"queued\":0,\"serving\":0,\"answered\":1000000,\"status\":\"error\",\"error\":\"bad\\u0000news\\u001b[31m\"," +
		"\"params\":{\"name\":\"x\",\"arguments\":{\"t\":\"caf\xe9 \xff\xfe\"}}}\n],\n\"events\":[]}\n"
	if err := os.WriteFile(in, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	saved, csvOut := filepath.Join(dir, "saved.json"), filepath.Join(dir, "spans.csv")
	r := runHostile(t, 30*time.Second, nil, nil, "report", in, "--save", saved, "--csv", csvOut)
	r.check(t, exitOK, 20*time.Second)
	got, _ := os.ReadFile(saved)
	if !utf8.Valid(got) {
		t.Errorf("the saved recording is not valid UTF-8: %q", got)
	}
	if !strings.Contains(string(got), "caf\uFFFD \uFFFD") {
		t.Errorf("the invalid bytes were not replaced by U+FFFD: %s", got)
	}
	c, _ := os.ReadFile(csvOut)
	for _, b := range c {
		if (b < 0x20 && b != '\n' && b != '\r' && b != '\t') || b == 0x7f {
			t.Fatalf("the CSV holds the control byte %#02x:\n%q", b, c)
		}
	}
	if !strings.Contains(string(c), `bad\x00news\x1b[31m`) {
		t.Errorf("the CSV does not show the error's control bytes escaped:\n%q", c)
	}
}
