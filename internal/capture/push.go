package capture

import (
	"context"
	"sync"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/fanout-inspector/inspector/recorder/otlppush"
)

// Push is the live OTLP push (package recorder/otlppush) as an
// [Observer]: pass Push.Observe in Options.Observers. It pushes each
// recording it observes while its capture lasts; when the capture
// closes, what is left is sent within Options.FlushTimeout, Warn is told
// what was not delivered, and the counts are kept ([Push.Stats]).
type Push struct {
	Options otlppush.Options
	// Warn is told why the push could not start, or what it could not
	// deliver; nil says nothing.
	Warn func(string)

	mu    sync.Mutex
	stats *otlppush.Stats // of the last push closed
}

// Observe starts pushing rec; the function it returns ends the push.
func (p *Push) Observe(rec *recorder.Recording) (done func()) {
	push, err := otlppush.Start(rec, p.Options)
	if err != nil {
		p.warn("--otlp-endpoint: " + err.Error())
		return nil
	}
	return func() {
		st := push.Close(context.Background())
		p.mu.Lock()
		p.stats = &st
		p.mu.Unlock()
		if w := st.Warning(); w != "" {
			p.warn("warning: " + w)
		}
	}
}

// Stats returns the counts of the last push that ended, nil before one
// did.
func (p *Push) Stats() *otlppush.Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stats
}

func (p *Push) warn(s string) {
	if p.Warn != nil {
		p.Warn(s)
	}
}
