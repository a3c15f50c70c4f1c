package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/fanout-inspector/inspector/internal/capture"
	"github.com/fanout-inspector/inspector/recorder"
	"github.com/fanout-inspector/inspector/recorder/otlppush"
)

// otlpPushFlag is --otlp-endpoint: the live OTLP push of run, proxy and
// gui (package recorder/otlppush).
type otlpPushFlag struct {
	endpoint string
	protocol string
	push     *capture.Push // once observer made it
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

// observer is the push as a [capture.Observer] ([capture.Push]), its
// warnings on stderr; flushTimeout bounds its last send (0: the push's
// default). Nil when the push is off.
func (o *otlpPushFlag) observer(cmd string, stderr io.Writer, flushTimeout time.Duration) capture.Observer {
	if !o.enabled() {
		return nil
	}
	o.push = &capture.Push{Options: otlppush.Options{Endpoint: o.endpoint, Protocol: o.protocol, FlushTimeout: flushTimeout},
		Warn: func(s string) { fmt.Fprintf(stderr, "inspector %s: %s\n", cmd, s) }}
	return o.push.Observe
}

// summary is what the JSON summary prints: sum, with an "otlp" object
// when the push was on.
func (o *otlpPushFlag) summary(sum recorder.Summary) any {
	if o == nil || o.push == nil || o.push.Stats() == nil {
		return sum
	}
	return struct {
		recorder.Summary
		OTLP *otlppush.Stats `json:"otlp"`
	}{sum, o.push.Stats()}
}
