package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fanout-inspector/inspector/engine/demo"
	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestJournalHTTPExchanges runs against the demo server over streamable
// HTTP behind a bearer token, twice, each run with a journal and a saved
// recording: each journal read back holds the same HTTP exchanges as the
// run's recording (`report --http --json` prints the same), the token is
// nowhere in the journal, and `report --merge` of the two journals keeps
// both sets, each under its source's name.
func TestJournalHTTPExchanges(t *testing.T) {
	const token = "jrnl-7c1e5a9b-token"
	srv := demo.NewServer()
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "missing or wrong token", http.StatusUnauthorized)
			return
		}
		mcpHandler.ServeHTTP(w, r)
	}))
	defer hs.Close()

	dir := t.TempDir()
	var journals []string
	for _, name := range []string{"a", "b"} {
		journal, saved := filepath.Join(dir, name+".jsonl"), filepath.Join(dir, name+".json")
		r := inspector(t, "run", "--url", hs.URL, "--header", "Authorization: Bearer "+token,
			"--tool", "echo", "--args", `{"text":"hi"}`, "--calls", "3",
			"--journal", journal, "--record", saved)
		if r.code != exitOK {
			t.Fatalf("run %s: exit %d\nstderr: %s", name, r.code, r.stderr)
		}
		fromJournal, err := recorder.LoadFile(journal)
		if err != nil {
			t.Fatalf("reading the journal back: %v", err)
		}
		recording, err := recorder.LoadFile(saved)
		if err != nil {
			t.Fatal(err)
		}
		if recording.HTTP == nil || len(recording.HTTP.Exchanges) < 4 {
			t.Fatalf("the saved recording has %+v: want the run's POSTs", recording.HTTP)
		}
		if !reflect.DeepEqual(fromJournal.HTTP, recording.HTTP) {
			t.Errorf("run %s: the journal read back has %d exchanges of %d, the recording %d of %d, or they differ",
				name, len(fromJournal.HTTP.Exchanges), fromJournal.HTTP.Total, len(recording.HTTP.Exchanges), recording.HTTP.Total)
		}
		fromJ, fromR := inspector(t, "report", journal, "--http", "--json"), inspector(t, "report", saved, "--http", "--json")
		if fromJ.code != exitOK || fromJ.stdout != fromR.stdout {
			t.Errorf("report --http --json of the journal (exit %d) differs from the recording's:\n%s\n---\n%s", fromJ.code, fromJ.stdout, fromR.stdout)
		}
		data, err := os.ReadFile(journal)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), token) {
			t.Errorf("the bearer token is in the journal %s", journal)
		}
		if !strings.Contains(string(data), `"name":"Authorization","value":"Bearer REDACTED","masked":true`) {
			t.Errorf("the journal has no masked Authorization header:\n%s", data)
		}
		journals = append(journals, journal)
	}

	merged := filepath.Join(dir, "merged.json")
	r := inspector(t, "report", "--merge", journals[0], journals[1], "--save", merged)
	if r.code != exitOK {
		t.Fatalf("report --merge: exit %d\nstderr: %s", r.code, r.stderr)
	}
	snap, err := recorder.LoadFile(merged)
	if err != nil {
		t.Fatal(err)
	}
	if snap.HTTP == nil {
		t.Fatal("the merged recording has no HTTP exchanges")
	}
	total, kept := 0, map[string]int{}
	for i, j := range journals {
		src, _ := recorder.LoadFile(j)
		total += src.HTTP.Total
		if got := snap.Meta.Merged[i].HTTP; got != src.HTTP.Total {
			t.Errorf("source %s counts %d exchanges, want %d", snap.Meta.Merged[i].Name, got, src.HTTP.Total)
		}
	}
	for _, x := range snap.HTTP.Exchanges {
		kept[strings.SplitN(x.Session, ":", 2)[0]]++
	}
	if snap.HTTP.Total != total || len(snap.HTTP.Exchanges) != total || kept["a"] == 0 || kept["b"] == 0 || kept["a"]+kept["b"] != total {
		t.Errorf("merged: %d exchanges kept of %d, by source %v; want all %d of both", len(snap.HTTP.Exchanges), snap.HTTP.Total, kept, total)
	}
	if data, _ := os.ReadFile(merged); strings.Contains(string(data), token) {
		t.Error("the bearer token is in the merged recording")
	}
}
