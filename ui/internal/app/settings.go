package app

import (
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sync"
)

// settings is what the app remembers between starts (the recent
// connections, the folder of the last file dialog): string values by key,
// kept in one JSON file that is replaced whole and atomically, by writing
// a temporary file beside it and renaming it over the old one. Fyne's own
// preferences truncate their file and then write it, so an app that
// stops in between, or a second instance that reads it meanwhile, finds
// an empty file ("Preferences load error: EOF") and the recent
// connections are gone. Its methods are safe from any goroutine.
type settings struct {
	path     string // "" keeps the values in memory only
	mu       sync.Mutex
	values   map[string]string
	fallback interface{ String(string) string }
}

// defaultSettingsFile is where the app keeps its [settings]: in the
// user's configuration folder ($XDG_CONFIG_HOME on Linux).
func defaultSettingsFile() string {
	base, err := os.UserConfigDir()
	if err != nil || base == "" {
		return ""
	}
	return filepath.Join(base, "fanout-inspector", "settings.json")
}

// openSettings reads the settings in the file path ("" for settings kept
// in memory only). A key the file lacks is read from fallback (may be
// nil): pass Fyne's preferences, where earlier versions kept these
// values. A file that cannot be read is reported in the log and the
// settings start empty.
func openSettings(path string, fallback interface{ String(string) string }) *settings {
	s := &settings{path: path, values: map[string]string{}, fallback: fallback}
	if path == "" {
		return s
	}
	b, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(b, &s.values)
	}
	if err != nil && !os.IsNotExist(err) {
		log.Printf("the settings in %s could not be read (%v): starting without them", path, err)
		s.values = map[string]string{}
	}
	return s
}

// Path returns the settings' file, "" when they are kept in memory.
func (s *settings) Path() string { return s.path }

// String returns the value of key, "" when it has none.
func (s *settings) String(key string) string {
	s.mu.Lock()
	v, ok := s.values[key]
	s.mu.Unlock()
	if !ok && s.fallback != nil {
		return s.fallback.String(key)
	}
	return v
}

// SetString sets key to value and writes the file; a failed write is
// reported in the log (the value is kept for this run).
func (s *settings) SetString(key, value string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.values[key] = value
	if s.path == "" {
		return
	}
	if err := s.write(); err != nil {
		log.Printf("the settings could not be saved: %v", err)
	}
}

// write replaces the file atomically; call it with mu held.
func (s *settings) write() error {
	b, err := json.MarshalIndent(s.values, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(s.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".settings-*.json")
	if err != nil {
		return err
	}
	_, err = f.Write(append(b, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), s.path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("writing %s: %w", s.path, err)
	}
	return nil
}
