package capture

import (
	"bytes"
	"log"
	"strings"
	"testing"

	"github.com/fanout-inspector/inspector/recorder"
)

// TestStdLogScrubbed: what net/http writes to the standard logger (here
// a line that quotes a peer's Authorization header) reaches the capture's
// Log without any capture's secret, also once a later capture passes the
// logger's own writer (as the app does, to keep its log filter).
func TestStdLogScrubbed(t *testing.T) {
	defer log.SetOutput(log.Writer())
	var out bytes.Buffer
	const first, second = "first-secret-8f3Kq9", "second-secret-Zr72Lm"
	c1, err := Start(Options{Meta: recorder.Meta{Title: "a"}, Secrets: []string{first}, Log: &out})
	if err != nil {
		t.Fatal(err)
	}
	defer c1.Close()
	c2, err := Start(Options{Meta: recorder.Meta{Title: "b"}, Secrets: []string{second}, Log: log.Writer()})
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	log.Printf("Unsolicited response received on idle HTTP channel starting with \"Authorization: Bearer %s, X-Key: %s\"", first, second)
	got := out.String()
	if got == "" {
		t.Fatal("the log line did not reach the first capture's Log")
	}
	for _, s := range []string{first, second} {
		if strings.Contains(got, s) {
			t.Errorf("the standard logger printed a secret: %q", got)
		}
	}
	if !strings.Contains(got, recorder.Redacted) {
		t.Errorf("the log line does not say what it left out: %q", got)
	}
}
