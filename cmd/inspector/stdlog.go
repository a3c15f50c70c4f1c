package main

import (
	"io"
	"log"
	"sync"

	"github.com/fanout-inspector/inspector/recorder"
)

// scrubStdLog sends the standard logger's lines to w through rec's
// scrubber ([recorder.Recording.Scrub]), as every other line the
// inspector prints about a session. It stays so for the rest of the
// process: a connection's read loop may log after the command is done
// with it. net/http logs there, quoting what a peer sent: an
// http.Transport prints the start of a response that came on an idle
// connection ("Unsolicited response received on idle HTTP channel
// starting with …"), which may echo an Authorization header or a key,
// and an http.Server without an ErrorLog prints its errors there too.
func scrubStdLog(rec *recorder.Recording, w io.Writer) {
	log.SetOutput(&scrubbedLines{w: w, scrub: rec.Scrub})
}

// scrubbedLines writes each line it is given (the standard logger writes
// a line at a time) to w through scrub.
type scrubbedLines struct {
	mu    sync.Mutex
	w     io.Writer
	scrub func(string) string
}

func (s *scrubbedLines) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := io.WriteString(s.w, s.scrub(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
