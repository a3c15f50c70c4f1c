package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/fanout-inspector/inspector/engine/load"
	"github.com/fanout-inspector/inspector/internal/workloadfile"
)

var updateWorkloadFiles = flag.Bool("update-workload-files", false, "rewrite ui/internal/app/testdata/init_demo.toml from inspector init --demo")

// The app's Workload panel test opens the file init writes, and saves
// the file this runs (ui/internal/app's TestWorkloadFileOpenEditSave).
var (
	initDemoFile   = filepath.Join("..", "..", "ui", "internal", "app", "testdata", "init_demo.toml")
	panelSavedFile = filepath.Join("..", "..", "ui", "internal", "app", "testdata", "panel_saved.toml")
)

// TestPanelWorkloadFiles: the file the app's panel tests open is what
// inspector init --demo writes today, and the file the panel saved runs
// unchanged with inspector run --workload: every operation called, the
// thresholds it holds checked.
func TestPanelWorkloadFiles(t *testing.T) {
	var out, stderr bytes.Buffer
	if code := initMain(t.Context(), []string{"--demo"}, &out, &stderr); code != exitOK {
		t.Fatalf("init --demo: exit %d: %s", code, stderr.String())
	}
	if *updateWorkloadFiles {
		if err := os.WriteFile(initDemoFile, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if want, err := os.ReadFile(initDemoFile); err != nil || !bytes.Equal(want, out.Bytes()) {
		t.Errorf("%s is not what inspector init --demo writes now (%v): rerun with -update-workload-files, then the app's tests", initDemoFile, err)
	}

	code, ops, _, errText := runJSON(t, "--demo", "--workload", panelSavedFile)
	if code != exitOK {
		t.Fatalf("run --workload %s: exit %d: %s", panelSavedFile, code, errText)
	}
	file, err := workloadfile.Read(panelSavedFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) != len(file.Operations) || ops[0].Method != "tools/call" || ops[0].Name != "echo" {
		t.Fatalf("operations %+v: want the file's %d, echo first", ops, len(file.Operations))
	}
	total := 0
	for _, op := range ops {
		total += op.Total
		if op.Failed != 0 {
			t.Errorf("%s %s: %d failed", op.Method, op.Name, op.Failed)
		}
	}
	if total != 50 {
		t.Errorf("%d calls over the operations: want the file's 50", total)
	}
	if ops[0].Total < 25 {
		t.Errorf("echo (weight 70 of %d) was picked %d times of 50", 69+len(ops), ops[0].Total)
	}
}

// TestPanelFilesEverything: against the TypeScript reference server, the
// file init writes reads back through the model the app's panel opens
// and saves with (every operation, its arguments as written), and a 70/30
// mix written as the panel writes it runs with inspector run --workload.
func TestPanelFilesEverything(t *testing.T) {
	server := everythingServer(t)
	var out, stderr bytes.Buffer
	if code := initMain(t.Context(), []string{"--stdio", server}, &out, &stderr); code != exitOK {
		t.Fatalf("init: exit %d: %s", code, stderr.String())
	}
	f, err := workloadfile.Parse("everything.toml", out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	w, sessions, err := f.Workload()
	if err != nil {
		t.Fatalf("init's file does not open as the panel opens it: %v", err)
	}
	saved, err := workloadfile.FromWorkload(w, sessions, f.Thresholds)
	if err != nil {
		t.Fatal(err)
	}
	back, err := workloadfile.Parse("saved.toml", saved.Marshal())
	if err != nil {
		t.Fatalf("saved again, it does not read: %v\n%s", err, saved.Marshal())
	}
	if len(back.Operations) != len(f.Operations) || len(f.Operations) < 10 {
		t.Fatalf("%d operations saved, init wrote %d", len(back.Operations), len(f.Operations))
	}
	for i, op := range f.Operations {
		a, _ := json.Marshal(op.Args)
		b, _ := json.Marshal(back.Operations[i].Args)
		if got := back.Operations[i]; got.Method != op.Method || got.Name != op.Name || got.Weight != op.Weight || string(a) != string(b) {
			t.Errorf("operation %d saved as %s %s %v %s, init wrote %s %s %v %s", i, got.Method, got.Name, got.Weight, b, op.Method, op.Name, op.Weight, a)
		}
	}

	mix, err := workloadfile.FromWorkload(load.Workload{Calls: 40, Concurrency: 4, Seed: 5, Operations: []load.Operation{
		{Method: "tools/call", Name: "echo", Args: json.RawMessage(`{"message":"hi"}`), Weight: 70},
		{Method: "resources/read", Name: "demo://resource/static/document/features.md", Weight: 30},
	}}, 1, []string{"operations.0.failed==0", "operations.1.failed==0"})
	if err != nil {
		t.Fatal(err)
	}
	path := writeTemp(t, "mix.toml", string(mix.Marshal()))
	code, ops, _, errText := runJSON(t, "--stdio", server, "--workload", path)
	if code != exitOK || len(ops) != 2 {
		t.Fatalf("run --workload: exit %d, operations %+v: %s", code, ops, errText)
	}
	if ops[0].Total+ops[1].Total != 40 || ops[0].OK != ops[0].Total || ops[1].OK != ops[1].Total || ops[1].Total == 0 {
		t.Errorf("operations %+v: want 40 calls over both, every one ok", ops)
	}
}
