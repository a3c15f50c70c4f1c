package recorder

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestSaveLoadIdentical(t *testing.T) {
	for name, snap := range snapshots() {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), name+".json")
			if err := SaveFile(path, snap); err != nil {
				t.Fatal(err)
			}
			got, err := LoadFile(path)
			if name == "disordered" {
				// Saved as it is (a writer never loses data), refused on
				// load: its phases run backwards.
				if err == nil || !strings.Contains(err.Error(), `span 1: field "queued" (4ms) comes before field "received" (5ms)`) {
					t.Fatalf("loading phases out of order: error %v, want span 1's queued before its received named", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if snap.Events == nil {
				snap.Events = []Event{}
			}
			if !reflect.DeepEqual(got, snap) {
				t.Errorf("loaded snapshot differs from the saved one:\n got %+v\nwant %+v", got, snap)
			}
			if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
				t.Errorf("saved file mode %v, want -rw------- (a recording may hold private data)", fi.Mode())
			}
			left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*tmp"))
			if len(left) > 0 {
				t.Errorf("temporary files left behind: %v", left)
			}
		})
	}
}

func TestSaveFileKeepsOldOnError(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // where the unsaved recording is kept
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	if err := SaveFile(path, fixedSnapshot()); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	// A folder that does not exist: the save fails and says so, and
	// where the recording is kept instead.
	err := SaveFile(filepath.Join(dir, "missing", "r.json"), fixedSnapshot())
	if err == nil {
		t.Fatal("saving into a missing folder gave no error")
	}
	_, kept, ok := strings.Cut(err.Error(), "the recording is kept in ")
	kept, _, _ = strings.Cut(kept, " instead")
	if !ok {
		t.Fatalf("the error does not say where the recording is kept: %v", err)
	}
	if snap, lerr := LoadFile(kept); lerr != nil || len(snap.Spans) != len(fixedSnapshot().Spans) {
		t.Errorf("the kept recording %s does not load whole: %v", kept, lerr)
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Error("a failed save changed another file")
	}
}

func TestLoadErrors(t *testing.T) {
	var good bytes.Buffer
	if err := Save(&good, fixedSnapshot()); err != nil {
		t.Fatal(err)
	}
	g := good.String()
	cases := []struct {
		name, data string
		want       string // a piece of the error a user reads
	}{
		{"empty", "", "empty"},
		{"not JSON", "hello, world\n", "not JSON"},
		{"JSON array", "[1,2]", "not an object"},
		{"other JSON", `{"a":1}`, `no "format" field`},
		{"other format", `{"format":"something-else","version":1}`, `format is "something-else"`},
		{"truncated", g[:len(g)/2], "truncated"},
		{"newer version", strings.Replace(g, `"version":2`, `"version":99`, 1), "newer than this inspector reads"},
		{"version zero", strings.Replace(g, `"version":2`, `"version":0`, 1), "invalid format version 0"},
		{"no version", strings.Replace(g, `"version":2,`, ``, 1), `"version" field is missing`},
		{"no meta", strings.Replace(g, `"meta":`, `"mota":`, 1), `"meta" field is missing`},
		{"no spans", strings.Replace(g, `"spans":`, `"spons":`, 1), `"spans" field is missing`},
		{"wrong type", strings.Replace(g, `"received":0`, `"received":"soon"`, 1), `field "spans[0].received": want a whole number of nanoseconds, got a string`},
		{"wrong type in a later span", strings.Replace(g, `"id":2,`, `"id":"two",`, 1), `field "spans[1].id": want a whole number, got a string`},
		{"now as text", strings.Replace(g, `"now":`, `"now":"3s","x":`, 1), `field "now": want a whole number of nanoseconds, got a string`},
		{"now a fraction", strings.Replace(g, `"now":`, `"now":1.5,"x":`, 1), `field "now": want a whole number of nanoseconds, got 1.5`},
		{"title a number", strings.Replace(g, `"title":`, `"title":7,"x":`, 1), `field "meta.title": want a string, got a number`},
		{"created not a time", strings.Replace(g, `"created":`, `"created":"yesterday","x":`, 1), `field "meta.created": want a time as text`},
		{"version as text", strings.Replace(g, `"version":2`, `"version":"1"`, 1), `field "version": want a whole number, got a string`},
		{"journal line wrong type", "{\"format\":\"fanout-inspector-journal\",\"version\":1,\"meta\":{\"created\":\"2026-01-02T03:04:05Z\"}}\n{\"span\":{\"id\":1,\"received\":\"x\"}}\n{\"end\":5}\n",
			`damaged at line 2: field "span.received": want a whole number of nanoseconds, got a string`},
		{"time near MaxInt64", strings.Replace(g, `"answered":`, `"answered":9223372036854775000,"x":`, 1), `span 1: field "answered" is 9223372036854775000 ns, more than 100 years after the recording started`},
		{"negative time", strings.Replace(g, `"serving":`, `"serving":-5,"x":`, 1), `field "serving" is -5, a negative time`},
		{"now near MaxInt64", strings.Replace(g, `"now":`, `"now":9223372036854775807,"x":`, 1), `field "now" is 9223372036854775807 ns`},
		{"event near MaxInt64", strings.Replace(g, `{"at":`, `{"at":9223372036854775000,"x":`, 1), `field "events[0].at" is 9223372036854775000 ns`},
		{"journal end near MaxInt64", "{\"format\":\"fanout-inspector-journal\",\"version\":1,\"meta\":{\"created\":\"2026-01-02T03:04:05Z\"}}\n{\"end\":9223372036854775000}\n", `field "end" is 9223372036854775000 ns`},
		{"bad direction", strings.Replace(g, `"direction":"outgoing"`, `"direction":"sideways"`, 1), `direction "sideways"`},
		{"ids out of order", strings.Replace(g, `{"id":2,`, `{"id":1,`, 1), "not above the previous id"},
		{"bad journal line", "{\"format\":\"fanout-inspector-journal\",\"version\":1,\"meta\":{\"created\":\"2026-01-02T03:04:05Z\"}}\n{garbage\n{\"end\":5}\n", "damaged at line 2"},
		{"torn journal header", "{\"format\":\"fanout-inspector-journal\",\"version\":1,\"me", "killed as it started"},
		{"negative stalled", strings.Replace(g, `"received":0`, `"received":0,"stalled":-4`, 1), `field "stalled" is -4 ns`},
		{"negative round", strings.Replace(g, `"received":0`, `"received":0,"round":-1`, 1), "round -1"},
		{"newer journal", "{\"format\":\"fanout-inspector-journal\",\"version\":7,\"meta\":{}}\n", "journal is format version 7"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			snap, err := Load(strings.NewReader(c.data))
			if err == nil {
				t.Fatalf("loaded without error: %d spans", len(snap.Spans))
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not say %q", err, c.want)
			}
			for _, goName := range []string{"fileHeader", "journalLine", "time.Duration", "recorder.", "int64"} {
				if strings.Contains(err.Error(), goName) {
					t.Errorf("error %q names the Go type %s, not the file's fields", err, goName)
				}
			}
		})
	}
	t.Run("missing file", func(t *testing.T) {
		_, err := LoadFile(filepath.Join(t.TempDir(), "nope.json"))
		if err == nil || !strings.Contains(err.Error(), "no such file") {
			t.Errorf("err = %v", err)
		}
	})
}

func FuzzLoad(f *testing.F) {
	var buf bytes.Buffer
	Save(&buf, fixedSnapshot())
	f.Add(buf.Bytes())
	buf.Reset()
	Save(&buf, emptySnapshot())
	f.Add(buf.Bytes())
	f.Add([]byte("{\"format\":\"fanout-inspector-journal\",\"version\":1,\"meta\":{}}\n{\"span\":{\"id\":1,\"direction\":\"incoming\",\"received\":1,\"queued\":2,\"serving\":3,\"answered\":4,\"status\":\"ok\"}}\n{\"ev"))
	f.Add([]byte(`{"format":"fanout-inspector-recording","version":1,"meta":{},"spans":[{"id":1,"direction":"incoming","received":-1,"queued":-1,"serving":-1,"answered":-1}]}`))
	f.Add([]byte("not json"))
	// Strings that need escaping in every export.
	f.Add([]byte(`{"format":"fanout-inspector-recording","version":1,"meta":{"title":"t\"<&>\u0001é"},"spans":[{"id":1,"session":"s\"\\\n\u00e9\ud800","direction":"outgoing","method":"tools/call","kind":"tool","name":"\u2028x","received":0,"queued":0,"serving":0,"answered":5,"status":"error","error":"bad\tthing"}],"events":[{"at":1,"session":"s","kind":"log","text":"\u0000","span":1}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		snap, err := Load(bytes.NewReader(data))
		if err != nil {
			if snap != nil {
				t.Fatal("a snapshot and an error")
			}
			return
		}
		// Whatever loads must summarize and save again without panicking
		// (package export fuzzes the exports), and load again to the same spans.
		Summarize(snap)
		var out bytes.Buffer
		out.Reset()
		if err := Save(&out, snap); err != nil {
			t.Fatal(err)
		}
		again, err := Load(&out)
		if err != nil {
			t.Fatalf("a loaded recording did not load after saving: %v", err)
		}
		if len(again.Spans) != len(snap.Spans) || len(again.Events) != len(snap.Events) {
			t.Fatalf("save and load changed the counts: %d/%d spans, %d/%d events",
				len(again.Spans), len(snap.Spans), len(again.Events), len(snap.Events))
		}
	})
}

// TestLoadVersion1 pins that recordings and journals written before
// format version 2 still load, and save again as version 2.
func TestLoadVersion1(t *testing.T) {
	for _, c := range []struct {
		file  string
		spans int
		calls int
	}{
		{"v1.recording.json", 8, 2},
		{"v1.journal.jsonl", 2, 1},
	} {
		t.Run(c.file, func(t *testing.T) {
			snap, err := LoadFile(filepath.Join("testdata", c.file))
			if err != nil {
				t.Fatal(err)
			}
			if len(snap.Spans) != c.spans {
				t.Errorf("%d spans, want %d", len(snap.Spans), c.spans)
			}
			sum := Summarize(snap)
			if sum.ToolCalls.Total != c.calls || sum.ToolCalls.Requests != c.calls || sum.ToolCalls.InputRounds != 0 {
				t.Errorf("tool calls %+v: want %d calls, one request each, no input rounds", sum.ToolCalls, c.calls)
			}
			var buf bytes.Buffer
			if err := Save(&buf, snap); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(buf.String(), `{"format":"fanout-inspector-recording","version":2,`) {
				t.Errorf("saved as %.60s…, want version 2", buf.String())
			}
		})
	}
}

// TestLoadRefusesContradictoryTotals: a sampled (version 3) recording
// whose totals were edited to contradict themselves is refused on load,
// saying which figures (it printed "5 total, 999999 ok, -7 failed" and a
// negative elapsed time).
func TestLoadRefusesContradictoryTotals(t *testing.T) {
	rec := New(Meta{})
	rec.SetMaxSpans(2)
	for i := range 10 {
		at := time.Duration(i) * time.Millisecond
		s := NewSpan("s1", Outgoing, "tools/call")
		s.Name, s.Received, s.Queued, s.Serving = "x", at, at, at
		rec.End(rec.Begin(s), at+time.Millisecond, Outcome{Status: StatusOK})
	}
	var buf bytes.Buffer
	if err := Save(&buf, rec.Snapshot()); err != nil {
		t.Fatal(err)
	}
	good := buf.String()
	if _, err := Load(strings.NewReader(good)); err != nil {
		t.Fatalf("the sampled recording does not load: %v", err)
	}
	for _, tc := range []struct{ name, re, with, want string }{
		{"negative", `"tool_failed":\d+`, `"tool_failed":-7`, "tool_failed -7, a negative count"},
		{"more ok than calls", `"tool_ok":\d+`, `"tool_ok":999999`, "10 tool calls, of which 999999 ok and 0 failed"},
		{"last before first", `"first_call":\d+`, `"first_call":50000000`, "first_call 50000000 ns after last_call 10000000 ns"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := regexp.MustCompile(tc.re).ReplaceAllString(good, tc.with)
			if bad == good {
				t.Fatalf("%s is not in the file", tc.re)
			}
			_, err := Load(strings.NewReader(bad))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to say %q", err, tc.want)
			}
		})
	}
}
