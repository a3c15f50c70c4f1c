package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSeriesCSVFromRunAndReport checks that a load run writes its
// per-second series with --series-csv, and that report writes the same
// from the saved recording; the JSON summary has the tail percentiles.
func TestSeriesCSVFromRunAndReport(t *testing.T) {
	dir := t.TempDir()
	out := func(name string) string { return filepath.Join(dir, name) }
	r := inspector(t, "run", "--tool", "echo", "--args", `{"text":"x"}`, "--calls", "60", "--concurrency", "3",
		"--record", out("run.json"), "--series-csv", out("run.csv"), "--otlp-metrics", out("metrics.json"), "--json", "--assert", "throughput_per_s>0")
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	var sum struct {
		CallMS     map[string]float64 `json:"call_ms"`
		Throughput float64            `json:"throughput_per_s"`
		Errors     []any              `json:"errors"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &sum); err != nil {
		t.Fatalf("summary is not JSON: %v\n%s", err, r.stdout)
	}
	for _, k := range []string{"p50", "p90", "p99", "p99_9", "max"} {
		if _, ok := sum.CallMS[k]; !ok {
			t.Errorf("call_ms has no %s: %v", k, sum.CallMS)
		}
	}
	if sum.CallMS["max"] <= 0 || sum.Throughput <= 0 || sum.Errors == nil {
		t.Errorf("call_ms %v, throughput_per_s %v, errors %v: want times, a rate and an empty list", sum.CallMS, sum.Throughput, sum.Errors)
	}
	finished := func(path string) (rows [][]string, total int) {
		t.Helper()
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		rows, err = csv.NewReader(f).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if want := "t_s,width_s,started,finished,errors,in_flight,queued,p50_ms,p99_ms"; strings.Join(rows[0], ",") != want {
			t.Errorf("%s header %q, want %q", path, strings.Join(rows[0], ","), want)
		}
		for _, row := range rows[1:] {
			n := 0
			for _, c := range row[3] {
				n = n*10 + int(c-'0')
			}
			total += n
		}
		return rows, total
	}
	if m, _ := os.ReadFile(out("metrics.json")); !strings.Contains(string(m), `"name":"mcp.client.operation.duration"`) || !strings.Contains(string(m), `"count":"60"`) {
		t.Errorf("--otlp-metrics: no histogram of the 60 calls:\n%s", m)
	}
	runRows, n := finished(out("run.csv"))
	if n != 60 || len(runRows) < 2 {
		t.Errorf("run --series-csv: %d rows finishing %d calls, want 60 calls", len(runRows)-1, n)
	}
	r = inspector(t, "report", out("run.json"), "--series-csv", out("report.csv"))
	if r.code != exitOK {
		t.Fatalf("report: exit %d\n%s", r.code, r.stderr)
	}
	if repRows, m := finished(out("report.csv")); m != 60 || len(repRows) != len(runRows) {
		t.Errorf("report --series-csv: %d rows finishing %d calls, want %d rows and 60 calls", len(repRows)-1, m, len(runRows)-1)
	}
}

// TestErrorsByJSONRPCCode checks that a call the server refuses with a
// JSON-RPC error is counted under its code, in both protocol eras (the
// later one records each call's wire rounds).
func TestErrorsByJSONRPCCode(t *testing.T) {
	for _, protocol := range []string{"2025-11-25", "latest"} {
		t.Run(protocol, func(t *testing.T) {
			r := inspector(t, "run", "--protocol", protocol, "--tool", "nosuchtool", "--calls", "2", "--json")
			if r.code != exitOK {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			var sum struct {
				Errors []struct {
					Kind  string `json:"kind"`
					Code  int    `json:"code"`
					Count int    `json:"count"`
				} `json:"errors"`
			}
			if err := json.Unmarshal([]byte(r.stdout), &sum); err != nil {
				t.Fatalf("summary is not JSON: %v", err)
			}
			if len(sum.Errors) != 1 || sum.Errors[0].Kind != "jsonrpc" || sum.Errors[0].Code != -32602 || sum.Errors[0].Count != 2 {
				t.Errorf("errors %+v, want 2 calls refused with JSON-RPC code -32602", sum.Errors)
			}
		})
	}
}
