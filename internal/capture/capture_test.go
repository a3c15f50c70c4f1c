package capture

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fanout-inspector/inspector/recorder"
)

// TestSecretsBeforeAnythingIsWritten: a secret named in the target (as
// a token on a server's command line) never reaches the journal, which
// writes the recording's header as it opens, nor --record or an export.
func TestSecretsBeforeAnythingIsWritten(t *testing.T) {
	const secret = "tok-7f3a9c"
	dir := t.TempDir()
	journal, record, csv := filepath.Join(dir, "run.jsonl"), filepath.Join(dir, "run.json"), filepath.Join(dir, "run.csv")
	c, err := Start(Options{
		Meta:    recorder.Meta{Title: "server --token " + secret, Target: "server --token " + secret},
		Secrets: []string{secret}, Journal: journal, Record: record,
		Exports: []Export{{Flag: "--csv", Path: csv, Write: func(w io.Writer, snap *recorder.Snapshot) error {
			_, err := io.WriteString(w, snap.Meta.Target+"\n")
			return err
		}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	c.Recording().AddEvent(recorder.Event{At: c.Recording().Now(), Kind: recorder.EventOther, Text: "the server said " + secret})
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{journal, record, csv} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatalf("%s was not written: %v", filepath.Base(f), err)
		}
		if strings.Contains(string(data), secret) {
			t.Errorf("%s shows the secret:\n%s", filepath.Base(f), data)
		}
	}
	if _, err := recorder.LoadFile(record); err != nil {
		t.Errorf("--record does not load: %v", err)
	}
}

// TestCloseWritesWhatItCan: a --record that cannot be written does not
// stop the exports; the error names what failed; observers end before
// the files are written, once.
func TestCloseWritesWhatItCan(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "run.csv")
	ended := 0
	c, err := Start(Options{
		Record: filepath.Join(dir, "no such folder", "run.json"),
		Exports: []Export{{Flag: "--csv", Path: csv, Write: func(w io.Writer, _ *recorder.Snapshot) error {
			if ended != 1 {
				t.Errorf("an export was written with the observer ended %d times, want 1", ended)
			}
			_, err := io.WriteString(w, "ok\n")
			return err
		}}},
		Observers: []Observer{func(*recorder.Recording) func() { return func() { ended++ } }},
	})
	if err != nil {
		t.Fatal(err)
	}
	err = c.Close()
	if err == nil || !strings.Contains(err.Error(), "cannot save the recording") {
		t.Errorf("Close: %v, want it to say the recording could not be saved", err)
	}
	if data, rerr := os.ReadFile(csv); rerr != nil || string(data) != "ok\n" {
		t.Errorf("the export after a failed --record: %q, %v", data, rerr)
	}
	if again := c.Close(); again == nil || again.Error() != err.Error() || ended != 1 {
		t.Errorf("a second Close: %v, observer ended %d times; want the first error and one end", again, ended)
	}
}

// TestJournalThatCannotOpen: without OnJournalError, Start fails with a
// JournalError and writes nothing; with it, the capture goes on.
func TestJournalThatCannotOpen(t *testing.T) {
	dir := t.TempDir()
	taken := filepath.Join(dir, "taken.jsonl")
	if err := os.WriteFile(taken, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	record := filepath.Join(dir, "run.json")
	_, err := Start(Options{Journal: taken, Record: record})
	var je *JournalError
	if err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("Start over an existing journal: %v, want it refused", err)
	} else if !errors.As(err, &je) {
		t.Errorf("Start's error %T is not a *JournalError", err)
	}
	var told error
	c, err := Start(Options{Journal: taken, Record: record, OnJournalError: func(err error) { told = err }})
	if err != nil || told == nil || c.JournalPath() != "" {
		t.Fatalf("with OnJournalError: %v, told %v, journal %q; want the capture without a journal", err, told, c.JournalPath())
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := recorder.LoadFile(record); err != nil {
		t.Errorf("--record of a capture without a journal: %v", err)
	}
}
