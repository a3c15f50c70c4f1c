package plainlocale

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestRewriteAndRestore runs the test binary again with each locale, so that
// this package's init sees it, and checks what init left and what Restore
// put back.
func TestRewriteAndRestore(t *testing.T) {
	if os.Getenv("PLAINLOCALE_CHILD") == "1" {
		during := os.Getenv("LANG")
		Restore()
		os.Stdout.WriteString(during + "|" + os.Getenv("LANG") + "\n")
		return
	}
	tests := []struct {
		lang, during string
	}{
		{"C.UTF-8", "C"},
		{"POSIX.UTF-8", "C"},
		{"en_US.UTF-8", "en_US.UTF-8"},
		{"C", "C"},
	}
	for _, tt := range tests {
		t.Run(tt.lang, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run", "^TestRewriteAndRestore$")
			cmd.Env = append(os.Environ(), "PLAINLOCALE_CHILD=1", "LANG="+tt.lang, "LC_ALL=", "LC_MESSAGES=")
			out, err := cmd.Output()
			if err != nil {
				t.Fatal(err)
			}
			line, _, _ := strings.Cut(string(out), "\n")
			if want := tt.during + "|" + tt.lang; line != want {
				t.Errorf("during init|after Restore = %q, want %q", line, want)
			}
		})
	}
}
