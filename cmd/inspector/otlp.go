package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/fanout-inspector/inspector/recorder/otlppush"
)

// otlpPushFlag is --otlp-endpoint: the live OTLP push of run, proxy and
// gui (package recorder/otlppush).
type otlpPushFlag struct {
	endpoint string
	protocol string
	push     *otlppush.Push
	stats    *otlppush.Stats
	warned   bool
}

// addOTLPPushFlag registers --otlp-endpoint on fs.
func addOTLPPushFlag(fs *flag.FlagSet) *otlpPushFlag {
	o := &otlpPushFlag{}
	fs.StringVar(&o.endpoint, "otlp-endpoint", "", "push spans and metrics, as the run happens, to the OpenTelemetry collector (Jaeger, Tempo…) at base `URL` over OTLP/HTTP, as in http://127.0.0.1:4318; "+
		"also on when OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set (off turns it off)")
	fs.StringVar(&o.protocol, "otlp-protocol", "", "the push's `PROTOCOL`: http/protobuf (the collector's port 4318) or grpc (4317); default: OTEL_EXPORTER_OTLP_PROTOCOL, or else http/protobuf")
	return o
}

// enabled reports whether the push is asked for, by the flag or by the
// standard environment.
func (o *otlpPushFlag) enabled() bool {
	if o == nil || o.endpoint == "off" {
		return false
	}
	return o.endpoint != "" || os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// check says what is wrong with the push's configuration (a bad URL,
// an unsupported protocol), before anything is recorded.
func (o *otlpPushFlag) check() error {
	if !o.enabled() {
		return nil
	}
	if err := otlppush.Check(o.endpoint, o.protocol); err != nil {
		return fmt.Errorf("--otlp-endpoint: %w", err)
	}
	return nil
}

// start begins pushing rec, when asked for; call check first.
func (o *otlpPushFlag) start(rec *recorder.Recording) {
	if !o.enabled() {
		return
	}
	p, err := otlppush.Start(rec, otlppush.Options{Endpoint: o.endpoint, Protocol: o.protocol})
	if err != nil { // check passed: the environment changed meanwhile
		return
	}
	o.push = p
}

// flush ends the push: it sends what is left, within the push's bounded
// flush time, and keeps the stats for the summary. Later calls do
// nothing.
func (o *otlpPushFlag) flush() {
	if o == nil || o.push == nil || o.stats != nil {
		return
	}
	st := o.push.Close(context.Background())
	o.stats = &st
}

// finish flushes the push and says on stderr, once, what was not
// delivered.
func (o *otlpPushFlag) finish(stderr io.Writer, cmd string) {
	o.flush()
	if o == nil || o.stats == nil || o.warned {
		return
	}
	o.warned = true
	if w := o.stats.Warning(); w != "" {
		fmt.Fprintf(stderr, "inspector %s: warning: %s\n", cmd, w)
	}
}

// observer is the GUI's [ui.Options.OnRecording]: a push of each
// connection's recording, its warning on stderr once the connection
// closes; nil when the push is off.
func (o *otlpPushFlag) observer(stderr io.Writer) func(*recorder.Recording) func() {
	if !o.enabled() {
		return nil
	}
	return func(rec *recorder.Recording) func() {
		// the app gives a closing connection 3 s when it quits
		p, err := otlppush.Start(rec, otlppush.Options{Endpoint: o.endpoint, Protocol: o.protocol, FlushTimeout: 2 * time.Second})
		if err != nil {
			fmt.Fprintf(stderr, "inspector gui: --otlp-endpoint: %v\n", err)
			return nil
		}
		return func() {
			if w := p.Close(context.Background()).Warning(); w != "" {
				fmt.Fprintf(stderr, "inspector gui: warning: %s\n", w)
			}
		}
	}
}

// summary is what the JSON summary prints: sum, with an "otlp" object
// when the push was on.
func (o *otlpPushFlag) summary(sum recorder.Summary) any {
	if o == nil || o.stats == nil {
		return sum
	}
	return struct {
		recorder.Summary
		OTLP *otlppush.Stats `json:"otlp"`
	}{sum, o.stats}
}
