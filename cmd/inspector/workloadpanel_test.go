package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
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
	if len(ops) != 7 || ops[0].Method != "tools/call" || ops[0].Name != "echo" || ops[6].Method != "prompts/get" {
		t.Fatalf("operations %+v: want the panel's 7, echo first and the prompt last", ops)
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
	if ops[0].Total < 30 {
		t.Errorf("echo (weight 70 of 76) was picked %d times of 50", ops[0].Total)
	}
}
