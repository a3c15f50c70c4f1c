package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
	"github.com/fanout-inspector/inspector/engine"
)

// TestRecentConnectionsKeepNoSecrets: the recent connections are kept in
// the preferences, a plain file, so a URL's credentials are redacted
// there, and headers are not kept at all; a list an older version wrote
// with whole URLs is redacted when read.
func TestRecentConnectionsKeepNoSecrets(t *testing.T) {
	a := test.NewTempApp(t)
	prefs := a.Preferences()
	target := engine.Target{
		Transport: engine.TransportHTTP,
		URL:       "http://alice:pa55word@127.0.0.1:8080/mcp?token=tok-s3cret&page=2",
		Headers:   map[string]string{"Authorization": "Bearer hdr-s3cret"},
	}
	p := newConnectionPanel(engine.Target{}, prefs)
	p.setConnected(target, &engine.ServerInfo{Name: "echo", Protocol: engine.DefaultProtocol}, nil)

	// Chosen again before the app quits, the URL comes back whole.
	if got := p.recentTargets(); len(got) != 1 || got[0].URL != target.URL || got[0].Headers != nil {
		t.Errorf("recent connections in memory: %+v, want the URL whole and no headers", got)
	}
	stored := prefs.String(recentKey)
	for _, secret := range []string{"alice", "pa55word", "tok-s3cret", "hdr-s3cret"} {
		if strings.Contains(stored, secret) {
			t.Errorf("the preferences hold %q: %s", secret, stored)
		}
		for _, label := range p.Recent.Options {
			if strings.Contains(label, secret) {
				t.Errorf("the recent list shows %q: %s", secret, label)
			}
		}
	}
	want := "http://REDACTED:REDACTED@127.0.0.1:8080/mcp?token=REDACTED&page=2"
	if got := newConnectionPanel(engine.Target{}, prefs).recentTargets(); len(got) != 1 || got[0].URL != want {
		t.Errorf("recent connections on the next start: %+v, want the URL kept as %s", got, want)
	}

	prefs.SetString(recentKey, `[{"transport":"http","url":"http://127.0.0.1/mcp?api_key=old-s3cret"}]`)
	again := newConnectionPanel(engine.Target{}, prefs)
	if got := again.recentTargets(); len(got) != 1 || got[0].URL != "http://127.0.0.1/mcp?api_key=REDACTED" {
		t.Errorf("recent connections read from an older list: %+v", got)
	}
	if s := prefs.String(recentKey); strings.Contains(s, "old-s3cret") {
		t.Errorf("the older list was not rewritten: %s", s)
	}
}

// TestBridgeJournalIsPrivate: the folder the app journals into is made
// 0700 and the journal in it 0600.
func TestBridgeJournalIsPrivate(t *testing.T) {
	b := newBridge(engine.DefaultAnswerPolicy())
	b.journalDir = filepath.Join(t.TempDir(), "made", "journal")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := b.Connect(ctx, engine.Target{}); err != nil {
		t.Fatal(err)
	}
	defer b.disconnect()
	files, _ := filepath.Glob(filepath.Join(b.journalDir, "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("journals: %v, want one", files)
	}
	for path, want := range map[string]os.FileMode{files[0]: 0o600, b.journalDir: 0o700, filepath.Dir(b.journalDir): 0o700} {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", path, fi.Mode().Perm(), want)
		}
	}
}
