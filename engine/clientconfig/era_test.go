package clientconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fanout-inspector/inspector/engine"
)

// TestEntryEra: an entry may carry the protocol era the inspector opens
// its session in; it reaches the target (and the target as written,
// which the app's Server panel shows), and a word that is not an era is
// the entry's error at its line and column, the file's other entries
// still usable.
func TestEntryEra(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".mcp.json")
	text := `{"mcpServers": {
  "modern": {"command": "node", "args": ["server.mjs"], "era": "modern"},
  "auto": {"url": "http://127.0.0.1:3000/mcp", "era": "Auto"},
  "plain": {"command": "node"},
  "typo": {"command": "node", "era": "newest"},
  "number": {"command": "node", "era": 2026}
}}`
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	f := Load(path)
	if f.Err != nil {
		t.Fatal(f.Err)
	}
	want := map[string]struct {
		era engine.Era
		err string
	}{
		"modern": {era: engine.EraModern},
		"auto":   {era: engine.EraAuto},
		"plain":  {},
		"typo":   {err: `.mcp.json:5:38: mcpServers.typo.era: era "newest": want legacy (initialize, the default), auto`},
		"number": {err: `.mcp.json:6:40: mcpServers.number.era: want a string, not a number`},
	}
	if len(f.Servers) != len(want) {
		t.Fatalf("servers %v", names(f.Servers))
	}
	for _, s := range f.Servers {
		w := want[s.Name]
		if w.err != "" {
			if s.Err == nil || !strings.Contains(s.Err.Error(), w.err) {
				t.Errorf("%s: error %v, want %q", s.Name, s.Err, w.err)
			}
			continue
		}
		tg, err := s.Target(Values{})
		if err != nil || tg.Era != w.era || s.Written().Era != w.era {
			t.Errorf("%s: target era %q, written %q (%v); want %q", s.Name, tg.Era, s.Written().Era, err, w.era)
		}
	}
}
