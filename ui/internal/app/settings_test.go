package app

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
	"github.com/fanout-inspector/inspector/engine"
)

// TestSettingsAreNeverSeenHalfWritten is the second instance that starts
// while the first saves its recent connections: however the two
// interleave, the file it reads holds the whole settings (Fyne's
// preferences, truncated and then written, gave "Preferences load
// error: EOF" and lost the recent connections).
func TestSettingsAreNeverSeenHalfWritten(t *testing.T) {
	path := filepath.Join(t.TempDir(), "conf", "settings.json")
	first := openSettings(path, nil)
	first.SetString("recent", `[{"transport":"demo"}]`)

	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the first instance, saving again and again
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			first.SetString("lastDir", fmt.Sprintf("/tmp/run-%d", i))
		}
	}()
	deadline := time.Now().Add(500 * time.Millisecond)
	reads := 0
	for time.Now().Before(deadline) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("read %d: %v", reads, err)
		}
		var values map[string]string
		if err := json.Unmarshal(b, &values); err != nil || values["recent"] == "" {
			close(stop)
			wg.Wait()
			t.Fatalf("read %d saw a half-written file (%v): %q", reads, err, b)
		}
		reads++
	}
	close(stop)
	wg.Wait()
	if got := openSettings(path, nil).String("recent"); got != `[{"transport":"demo"}]` {
		t.Errorf("the next start reads recent = %q", got)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".settings-*")); len(leftovers) > 0 {
		t.Errorf("temporary files left behind: %v", leftovers)
	}
	t.Logf("%d reads during the writes, all whole", reads)
}

// TestSettingsFallBackToFynePreferences: the recent connections an
// earlier version kept in Fyne's preferences are still offered, and a
// broken settings file is reported and ignored, not fatal.
func TestSettingsFallBackToFynePreferences(t *testing.T) {
	a := test.NewTempApp(t)
	a.Preferences().SetString(recentKey, `[{"transport":"stdio","command":"node s.mjs"}]`)
	path := filepath.Join(t.TempDir(), "settings.json")
	s := openSettings(path, a.Preferences())
	if got := newConnectionPanel(engine.Target{}, s).recentTargets(); len(got) != 1 || got[0].Command != "node s.mjs" {
		t.Errorf("recent connections from Fyne's preferences: %v", got)
	}
	if err := os.WriteFile(path, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := openSettings(path, nil).String(recentKey); got != "" {
		t.Errorf("a broken file gave %q", got)
	}
}
