package capture

import (
	"io"
	"log"
	"sync"
)

// stdLog is where the standard logger writes once a capture asked for it
// (Options.Log): net/http logs there, quoting what a peer sent. An
// http.Transport prints the start of a response that came on an idle
// connection ("Unsolicited response received on idle HTTP channel
// starting with …"), which may echo an Authorization header or a key, and
// an http.Server without an ErrorLog prints its errors there too. Every
// line passes through the scrubber of every capture of the process, and
// stays so after a capture closes: a connection's read loop may log after
// its run is done. Only the scrubbers are kept, not the recordings.
var stdLog scrubbedLog

type scrubbedLog struct {
	once   sync.Once
	mu     sync.Mutex
	w      io.Writer             // guarded by mu: the latest capture's Options.Log
	scrubs []func(string) string // guarded by mu
}

// route sends the standard logger's lines to w through scrub and the
// scrubbers routed before.
func (s *scrubbedLog) route(w io.Writer, scrub func(string) string) {
	s.mu.Lock()
	if w != io.Writer(s) { // log.Writer() once routed: keep writing where it went
		s.w = w
	}
	s.scrubs = append(s.scrubs, scrub)
	s.mu.Unlock()
	s.once.Do(func() { log.SetOutput(s) })
}

// Write writes one line of the standard logger (it writes a line at a
// time), scrubbed.
func (s *scrubbedLog) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	line := string(p)
	for _, scrub := range s.scrubs {
		line = scrub(line)
	}
	if _, err := io.WriteString(s.w, line); err != nil {
		return 0, err
	}
	return len(p), nil
}
