package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/load"
	"github.com/fanout-inspector/inspector/engine/oauth"
	"github.com/fanout-inspector/inspector/engine/oauth/oauthtest"
	"github.com/fanout-inspector/inspector/recorder"
)

// TestOAuthSignInFromThePanel: with "Sign in with OAuth" checked, Connect
// opens the authorization page in the browser (played by the test),
// catches the redirect, and connects with the token; the log view shows
// where to sign in; the preferences file, the journal and the saved
// recording hold none of the sign-in's secrets; a second Connect reuses
// the token without the browser.
func TestOAuthSignInFromThePanel(t *testing.T) {
	test.NewTempApp(t)
	srv := oauthtest.New(oauthtest.Options{})
	defer srv.Close()
	var opened int
	was := openInBrowser
	openInBrowser = func(address string) error {
		opened++
		go oauthtest.Browse(context.Background(), address)
		return nil
	}
	defer func() { openInBrowser = was }()

	keyringWas := oauthKeyring
	oauthKeyring = &memKeyring{}
	defer func() { oauthKeyring = keyringWas }()

	dir := t.TempDir()
	settings := openSettings(filepath.Join(dir, "settings.json"), nil)
	p := newConnectionPanel(engine.Target{}, settings)
	p.setTarget(engine.Target{Transport: engine.TransportHTTP, URL: srv.MCPURL()})
	if p.rows["oauth"].Hidden {
		t.Fatal("the OAuth row is hidden for an HTTP server")
	}
	test.Tap(p.oauth.use)

	var mu sync.Mutex
	var logged []string
	b := newBridge(engine.DefaultAnswerPolicy())
	b.journalDir = filepath.Join(dir, "journal")
	b.onLog = func(e recorder.Event) {
		mu.Lock()
		logged = append(logged, e.Text)
		mu.Unlock()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for round := 1; round <= 2; round++ {
		target, err := p.target()
		if err != nil {
			t.Fatal(err)
		}
		s, err := b.Connect(ctx, target)
		if err != nil {
			t.Fatalf("connect %d: %v", round, err)
		}
		if res, err := load.Run(ctx, []*engine.Session{s}, load.Workload{Tool: "whoami"}, nil); err != nil || res.OK != 1 {
			t.Fatalf("whoami: %+v %v", res, err)
		}
		p.setConnected(target, &engine.ServerInfo{Name: "oauth-protected"}, nil)
		if err := recorder.SaveFile(filepath.Join(dir, "run.json"), s.Recording().Snapshot()); err != nil {
			t.Fatal(err)
		}
		b.disconnect()
	}
	if opened != 1 {
		t.Errorf("the browser was opened %d times for two connections, want once", opened)
	}
	// Sign out: the next Connect asks the browser again.
	test.Tap(p.oauth.SignOut)
	if !p.problem.Hidden {
		t.Errorf("signing out shows a problem: %s", p.problem.Text)
	}
	target, err := p.target()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Connect(ctx, target); err != nil {
		t.Fatalf("connect after signing out: %v", err)
	}
	b.disconnect()
	if opened != 2 {
		t.Errorf("after Sign out the browser was opened %d times in all, want 2", opened)
	}
	mu.Lock()
	log := strings.Join(logged, "\n")
	mu.Unlock()
	if !strings.Contains(log, "OAuth: Open this address in a browser to sign in to "+srv.MCPURL()) {
		t.Errorf("the log view does not say where to sign in:\n%s", log)
	}
	issued := srv.Issued()
	if len(issued) < 5 {
		t.Fatalf("issued only %q", issued)
	}
	files := 0
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		data, _ := os.ReadFile(path)
		for _, v := range issued {
			if strings.Contains(string(data), v) {
				t.Errorf("%s holds the secret %q", path, v)
			}
		}
		return nil
	})
	if files < 4 { // settings, two journals, the recording
		t.Errorf("%d files checked, want the settings, the journals and the recording", files)
	}
	if s := settings.String(recentKey); !strings.Contains(s, srv.MCPURL()) {
		t.Errorf("the recent connections do not list the server: %s", s)
	}
}

// TestOAuthChoiceFromFlags: a target that comes with an OAuth client
// (inspector gui --url … --oauth --oauth-remember) checks both boxes, and
// connecting uses that very client, with its settings.
func TestOAuthChoiceFromFlags(t *testing.T) {
	test.NewTempApp(t)
	c := oauth.New(oauth.Config{ServerURL: "http://127.0.0.1:9/mcp", ClientID: "from-the-flags", Remember: true})
	p := newConnectionPanel(engine.Target{Transport: engine.TransportHTTP, URL: "http://127.0.0.1:9/mcp", HTTPAuth: c}, nil)
	if !p.oauth.use.Checked || !p.oauth.remember.Checked {
		t.Fatalf("boxes: use %v remember %v, want both checked", p.oauth.use.Checked, p.oauth.remember.Checked)
	}
	got, err := p.target()
	if err != nil {
		t.Fatal(err)
	}
	if got.HTTPAuth != c {
		t.Error("connecting would not use the client the flags made")
	}
	test.Tap(p.oauth.use)
	if got, _ := p.target(); got.HTTPAuth != nil {
		t.Error("unchecked, the target still signs in")
	}
	p.headers.SetText("Authorization: Bearer abcd")
	test.Tap(p.oauth.use)
	if _, err := p.target(); err == nil || !strings.Contains(err.Error(), "choose one") {
		t.Errorf("an Authorization header with OAuth: %v", err)
	}
}

// memKeyring stands for the OS keyring.
type memKeyring struct {
	mu      sync.Mutex
	entries map[string]string
}

func (k *memKeyring) Get(service, user string) (string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if v, ok := k.entries[service+"/"+user]; ok {
		return v, nil
	}
	return "", oauth.ErrNotRemembered
}

func (k *memKeyring) Set(service, user, secret string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.entries == nil {
		k.entries = map[string]string{}
	}
	k.entries[service+"/"+user] = secret
	return nil
}

func (k *memKeyring) Delete(service, user string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if _, ok := k.entries[service+"/"+user]; !ok {
		return oauth.ErrNotRemembered
	}
	delete(k.entries, service+"/"+user)
	return nil
}

// TestOAuthRowKeepsThePanelNarrow: the Server panel is a side panel; the
// OAuth row must not make it wider than the rows it already has.
func TestOAuthRowKeepsThePanelNarrow(t *testing.T) {
	test.NewTempApp(t)
	p := newConnectionPanel(engine.Target{Transport: engine.TransportHTTP, URL: "http://127.0.0.1:9/mcp"}, nil)
	with := p.content.MinSize().Width
	p.rows["oauth"].Hide()
	without := p.content.MinSize().Width
	if with > without {
		t.Errorf("the OAuth row widens the panel from %.0f to %.0f", without, with)
	}
}
