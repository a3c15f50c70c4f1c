package workloadfile

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/engine/load"
)

// TestRoundTrip: a workload written as a file and read back is the
// workload it was, whatever its shape, and the file written again is the
// same text.
func TestRoundTrip(t *testing.T) {
	mix := []load.Operation{
		{Method: "tools/call", Name: "echo", Weight: 70, Args: json.RawMessage(`{"text":"hi \"there\"\n","n":12345678901,"nested":{"list":[1,2.5,"x"]}}`)},
		{Method: "resources/read", Name: "demo://item/{id}", Weight: 30},
		{Method: "prompts/get", Name: "greet", Weight: 0.5, Args: json.RawMessage(`{"name":"Ada"}`)},
	}
	for _, tc := range []struct {
		name       string
		w          load.Workload
		sessions   int
		thresholds []string
	}{
		{"closed", load.Workload{Calls: 100, Concurrency: 7, CallTimeout: 2 * time.Second, Seed: 42}, 3, []string{"call_ms.p95<=200", "operations.1.failed==0"}},
		{"duration", load.Workload{Duration: 1500 * time.Millisecond, Concurrency: 2}, 1, nil},
		{"open", load.Workload{Rate: 250.5, Duration: 10 * time.Second, MaxInFlight: 40}, 1, nil},
		{"rate stages", load.Workload{Stages: []load.Stage{{Duration: 10 * time.Second, Target: 50}, {Duration: 30 * time.Second, Target: 200}}, Ramp: load.RampRate}, 1, nil},
		{"caller stages", load.Workload{Stages: []load.Stage{{Duration: 5 * time.Second, Target: 8}}, Ramp: load.RampConcurrency, Concurrency: 1}, 2, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := tc.w
			w.Operations = mix
			f, err := FromWorkload(w, tc.sessions, tc.thresholds)
			if err != nil {
				t.Fatal(err)
			}
			text := f.Marshal()
			back, err := Parse("mix.toml", text)
			if err != nil {
				t.Fatalf("the file written does not read back: %v\n%s", err, text)
			}
			got, sessions, err := back.Workload()
			if err != nil {
				t.Fatalf("the file written does not run: %v\n%s", err, text)
			}
			if sessions != tc.sessions {
				t.Errorf("sessions %d, want %d", sessions, tc.sessions)
			}
			if !sameWorkload(got, w) {
				t.Errorf("read back as\n%+v\nwant\n%+v\nfile:\n%s", got, w, text)
			}
			if !reflect.DeepEqual(back.Thresholds, tc.thresholds) && len(tc.thresholds)+len(back.Thresholds) > 0 {
				t.Errorf("thresholds %q, want %q", back.Thresholds, tc.thresholds)
			}
			again, _ := FromWorkload(got, sessions, back.Thresholds)
			if a := again.Marshal(); string(a) != string(text) {
				t.Errorf("written again differs:\n%s\nfirst:\n%s", a, text)
			}
		})
	}
}

// sameWorkload compares two workloads, their operations' arguments as
// JSON values.
func sameWorkload(a, b load.Workload) bool {
	ao, bo := a.Operations, b.Operations
	a.Operations, b.Operations = nil, nil
	if !reflect.DeepEqual(a, b) || len(ao) != len(bo) {
		return false
	}
	for i := range ao {
		var x, y any
		json.Unmarshal(ao[i].Args, &x)
		json.Unmarshal(bo[i].Args, &y)
		if ao[i].Method != bo[i].Method || ao[i].Name != bo[i].Name || ao[i].Weight != bo[i].Weight || !reflect.DeepEqual(x, y) {
			return false
		}
	}
	return true
}

// TestErrorsNameTheLine: what is wrong in a file is an *Error at the
// line that says it, worded with the file's keys.
func TestErrorsNameTheLine(t *testing.T) {
	const op = "[[operations]]\nmethod = \"tools/call\"\nname = \"echo\"\nweight = 1\n"
	for _, tc := range []struct {
		name, file string
		line       int
		want       string
	}{
		{"syntax", "[load\ncalls = 5\n", 2, "table name"},
		{"unknown key", op + "wieght = 3\n", 5, `unknown key "operations.wieght"`},
		{"wrong type", "[load]\ncalls = \"many\"\n" + op, 2, "string"},
		{"no operations", "[load]\ncalls = 5\n", 0, "no operations"},
		{"shape", "[load]\nrate = 100\n" + op, 2, "load.rate: an open loop needs load.duration"},
		{"weight", op + "[[operations]]\nmethod = \"prompts/get\"\nname = \"greet\"\nweight = -1\n", 8, "operation 1 (prompts/get greet): weight"},
		{"threshold", "thresholds = [\"operations.3.failed==0\"]\n" + op, 1, "N from 0 to 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Parse("bad.toml", []byte(tc.file))
			if err == nil {
				_, _, err = f.Workload()
			}
			if err == nil && tc.name == "threshold" {
				_, err = f.Checks(len(f.Operations))
			}
			var fe *Error
			if !errors.As(err, &fe) {
				t.Fatalf("error %v (%T), want an *Error", err, err)
			}
			if fe.Line != tc.line || fe.Path != "bad.toml" || !strings.Contains(fe.Msg, tc.want) {
				t.Errorf("error %q at line %d, want line %d and %q", fe.Error(), fe.Line, tc.line, tc.want)
			}
		})
	}
}

// TestReadBounded: a file larger than MaxSize is refused without being
// read whole, saying what it is.
func TestReadBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.toml")
	if err := os.WriteFile(path, []byte("# "+strings.Repeat("x", MaxSize)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(path); err == nil || !strings.Contains(err.Error(), "larger than 1024 KiB") {
		t.Errorf("Read = %v, want it refused as too large", err)
	}
	if _, err := Read(filepath.Join(t.TempDir(), "none.toml")); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Read of a missing file = %v, want not-exist", err)
	}
}
