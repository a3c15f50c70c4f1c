// Package otlppush sends a recording to an OpenTelemetry collector (Jaeger,
// Tempo, an OpenTelemetry Collector…) over OTLP/HTTP as the run happens,
// with the official OpenTelemetry Go SDK and its exporters.
//
// [Start] registers a [Push] as an observer of a [recorder.Recording]:
// each span is pushed as it ends, with the same trace and span IDs, parent
// links, name, attributes and events as the OTLP file export of package
// recorder/export (its IDs come from [recorder.TraceIDsOf]), batched by
// the SDK's batch span processor; client requests also feed the
// mcp.client.operation.duration histogram of the OpenTelemetry MCP
// conventions. [Push.Close] flushes what is left within a bounded time
// and returns [Stats]: how many spans reached the collector and how many
// were dropped.
//
// A collector that is down or slow never slows the run nor touches the
// recording: the observer only puts the span on a bounded queue, a
// worker goroutine hands it to the SDK, every export call has a timeout,
// and what cannot be queued or sent is counted as dropped.
//
// The exporters read the standard environment variables themselves
// (OTEL_EXPORTER_OTLP_ENDPOINT and its per-signal forms, _HEADERS,
// _TIMEOUT, _COMPRESSION, _CERTIFICATE, _INSECURE…); [Options.Endpoint],
// when given, takes the place of OTEL_EXPORTER_OTLP_ENDPOINT.
package otlppush

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/fanout-inspector/inspector/recorder/export"
)

// Options configure a [Push]. The zero value pushes to the collector the
// OTEL_EXPORTER_OTLP_* environment variables name.
type Options struct {
	// Endpoint is the collector's base URL, read as
	// OTEL_EXPORTER_OTLP_ENDPOINT is: over HTTP the signal paths
	// /v1/traces and /v1/metrics are appended to it. Empty: the
	// environment's.
	Endpoint string
	// Protocol is "http/protobuf" or "grpc"; empty: the environment's
	// (OTEL_EXPORTER_OTLP_PROTOCOL and its per-signal forms), or else
	// http/protobuf.
	Protocol string
	// FlushTimeout bounds how long [Push.Close] waits for the last
	// batches; 0 means [DefaultFlushTimeout].
	FlushTimeout time.Duration
	// QueueSize is how many ended spans may wait for the SDK before
	// more are dropped; 0 means [DefaultQueueSize].
	QueueSize int
}

// DefaultFlushTimeout is how long [Push.Close] waits at most for the last
// spans and metrics to reach the collector.
const DefaultFlushTimeout = 3 * time.Second

// DefaultQueueSize is how many ended spans may wait to be handed to the
// SDK (whose own batch queue holds 2048 more, OTEL_BSP_MAX_QUEUE_SIZE).
const DefaultQueueSize = 4096

// Stats say what a [Push] delivered. Spans = Pushed + Dropped.
type Stats struct {
	// Endpoint is where traces went (credentials in it redacted).
	Endpoint string `json:"endpoint"`
	// Spans is how many spans ended while the push was on.
	Spans int64 `json:"spans"`
	// Pushed is how many of them the collector accepted.
	Pushed int64 `json:"pushed_spans"`
	// Dropped is how many did not reach it: the queue was full, an export
	// failed, or they were still on their way when Close gave up.
	Dropped int64 `json:"dropped_spans"`
	// MetricExportsFailed counts the metric exports that failed.
	MetricExportsFailed int64 `json:"metric_exports_failed"`
	// SlowestExportMS is the longest a span export call took.
	SlowestExportMS float64 `json:"slowest_export_ms"`
	// Error is the last export error, if any.
	Error string `json:"error,omitempty"`
}

// Warning returns the line a person should read when something was not
// delivered ("" when everything was).
func (s Stats) Warning() string {
	var parts []string
	if s.Dropped > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d spans were not delivered", s.Dropped, s.Spans))
	}
	if s.MetricExportsFailed > 0 {
		parts = append(parts, fmt.Sprintf("%d metric exports failed", s.MetricExportsFailed))
	}
	if len(parts) == 0 {
		return ""
	}
	why := ""
	if s.Error != "" {
		why = " (last error: " + s.Error + ")"
	}
	return fmt.Sprintf("OTLP push to %s: %s%s; the recording itself is complete (--record and --otlp write it to files)",
		s.Endpoint, strings.Join(parts, ", "), why)
}

// item is one thing the observer hands the worker: a span that ended or
// an event.
type item struct {
	span  *recorder.Span
	event recorder.Event
}

// Push is a live OTLP push of one recording; see the package doc.
type Push struct {
	rec      *recorder.Recording
	ids      recorder.TraceIDs
	created  time.Time
	opts     Options
	endpoint string // for messages, redacted
	scrub    func(string) string

	queue chan item
	stop  chan struct{}
	done  chan struct{}
	once  sync.Once

	// built by the worker when the recording's metadata is known; provMu
	// guards tp and mp, which Close reads
	provMu sync.Mutex
	tp     *sdktrace.TracerProvider
	mp     *sdkmetric.MeterProvider
	tracer trace.Tracer
	hist   metric.Float64Histogram
	metaV  recorder.Meta

	spans, pushed, failedMetrics atomic.Int64
	slowest                      atomic.Int64 // nanoseconds
	errMu                        sync.Mutex
	lastErr                      string
}

// Start checks the configuration, builds the exporters and starts
// observing rec. It returns an error the person can act on when the
// endpoint or the environment is wrong; nothing is sent before the first
// span ends.
func Start(rec *recorder.Recording, o Options) (*Push, error) {
	if o.FlushTimeout <= 0 {
		o.FlushTimeout = DefaultFlushTimeout
	}
	if o.QueueSize <= 0 {
		o.QueueSize = DefaultQueueSize
	}
	endpoint, err := checkConfig(o.Endpoint, o.Protocol)
	if err != nil {
		return nil, err
	}
	snap := rec.Snapshot()
	p := &Push{
		rec: rec, ids: recorder.TraceIDsOf(snap.Meta), created: snap.Meta.Created, opts: o,
		endpoint: endpoint,
		queue:    make(chan item, o.QueueSize),
		stop:     make(chan struct{}),
		done:     make(chan struct{}),
	}
	p.scrub = secretScrubber(o.Endpoint)
	quietSDK.Do(func() {
		// The SDK would log each failed export on stderr, in the middle
		// of the run's output; the exporters' wrappers note them instead.
		otel.SetErrorHandler(otel.ErrorHandlerFunc(func(error) {}))
	})
	rec.Observe(p)
	go p.work()
	return p, nil
}

// Check says what is wrong with a push to endpoint over protocol (as in
// [Options]) in this environment, or returns nil: a URL that is not a
// collector's base URL, a protocol other than http/protobuf and grpc.
func Check(endpoint, protocol string) error {
	_, err := checkConfig(endpoint, protocol)
	return err
}

// Protocols the push speaks.
const (
	ProtocolHTTP = "http/protobuf"
	ProtocolGRPC = "grpc"
)

// protocolOf is the protocol of signal ("TRACES", "METRICS"): the
// option, or the environment's, or http/protobuf.
func protocolOf(option, signal string) string {
	for _, p := range []string{option, os.Getenv("OTEL_EXPORTER_OTLP_" + signal + "_PROTOCOL"), os.Getenv("OTEL_EXPORTER_OTLP_PROTOCOL")} {
		if p != "" {
			return p
		}
	}
	return ProtocolHTTP
}

var quietSDK sync.Once

// checkConfig validates the endpoint and the protocol, and returns the
// endpoint to name in messages.
func checkConfig(endpoint, protocol string) (string, error) {
	if protocol != "" && protocol != ProtocolHTTP && protocol != ProtocolGRPC {
		return "", fmt.Errorf("protocol %q: want http/protobuf (the collector's port 4318) or grpc (4317)", protocol)
	}
	for _, v := range []string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		if p := os.Getenv(v); protocol == "" && p != "" && p != ProtocolHTTP && p != ProtocolGRPC {
			return "", fmt.Errorf("%s=%s: want http/protobuf or grpc (http/json is not supported)", v, p)
		}
	}
	grpc := protocolOf(protocol, "TRACES") == ProtocolGRPC
	shown := endpoint
	if endpoint == "" {
		shown = os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
		if shown == "" {
			shown = os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT")
		}
		if shown == "" {
			shown = "http://localhost:4318" // the SDK's defaults
			if grpc {
				shown = "https://localhost:4317"
			}
		}
	} else {
		u, err := url.Parse(endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return "", fmt.Errorf("%q is not a collector URL: want http://HOST:PORT or https://HOST:PORT (the collector's OTLP port: 4318 for HTTP, 4317 for gRPC)", endpoint)
		}
		if u.RawQuery != "" || u.Fragment != "" {
			return "", fmt.Errorf("%q: a collector's base URL has no query or fragment", endpoint)
		}
	}
	return recorder.RedactURL(shown), nil
}

// secretScrubber removes the endpoint's password and the OTLP header
// values (credentials, by the spec's own advice) from error texts.
func secretScrubber(endpoint string) func(string) string {
	var secrets []string
	if u, err := url.Parse(endpoint); err == nil && u.User != nil {
		if pw, ok := u.User.Password(); ok && pw != "" {
			secrets = append(secrets, pw, url.QueryEscape(pw))
		}
	}
	for _, v := range []string{"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_METRICS_HEADERS"} {
		for _, kv := range strings.Split(os.Getenv(v), ",") {
			if _, val, ok := strings.Cut(kv, "="); ok && len(strings.TrimSpace(val)) >= 4 {
				val = strings.TrimSpace(val)
				secrets = append(secrets, val)
				if un, err := url.QueryUnescape(val); err == nil && un != val {
					secrets = append(secrets, un)
				}
			}
		}
	}
	return func(s string) string {
		for _, sec := range secrets {
			s = strings.ReplaceAll(s, sec, recorder.Redacted)
		}
		return s
	}
}

// SpanFinished queues s for the worker, or counts it dropped when the
// queue is full. It never blocks.
func (p *Push) SpanFinished(s *recorder.Span) {
	p.spans.Add(1)
	select {
	case p.queue <- item{span: s}:
	default:
	}
}

// EventAdded queues an event that belongs to a span (it becomes one of
// the span's events), never blocking; other events are not pushed.
func (p *Push) EventAdded(e recorder.Event) {
	if e.Span == 0 && e.Kind != recorder.EventConnection {
		return
	}
	select {
	case p.queue <- item{event: e}:
	default:
	}
}

// noteError keeps the last error the SDK or an exporter reported.
func (p *Push) noteError(err error) {
	if err == nil {
		return
	}
	msg, _, _ := strings.Cut(p.scrub(err.Error()), "\n") // scrubbed before it is cut
	if len(msg) > 300 {
		msg = strings.ToValidUTF8(msg[:300], "") + "…"
	}
	p.errMu.Lock()
	p.lastErr = msg
	p.errMu.Unlock()
}

// build makes the SDK's providers, once the recording's metadata (its
// server, target, protocol) is known.
func (p *Push) build() {
	p.metaV = p.rec.Snapshot().Meta
	m := p.metaV
	var attrs []attribute.KeyValue
	for _, kv := range recorder.ResourceAttributes(m) {
		attrs = append(attrs, attribute.String(kv[0], kv[1]))
	}
	res := resource.NewSchemaless(attrs...)
	// OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME, when set, win
	if env, err := resource.New(context.Background(), resource.WithFromEnv()); err == nil {
		if merged, err := resource.Merge(res, env); err == nil {
			res = merged
		}
	}

	ctx := context.Background()
	texp, mexp, err := p.exporters(ctx)
	if err != nil {
		p.noteError(err)
		return
	}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithResource(res),
		sdktrace.WithIDGenerator(idGenerator{}),
		sdktrace.WithSampler(sdktrace.AlwaysSample()),
		// blocking: when the SDK's queue is full the worker waits (a
		// burst is carried, not dropped) and the observer's own bounded
		// queue drops and counts instead; the SDK's shutdown drains its
		// queue, so a worker waiting on a stuck collector is let go
		sdktrace.WithSpanProcessor(sdktrace.NewBatchSpanProcessor(&countingExporter{SpanExporter: texp, p: p}, sdktrace.WithBlocking())),
	)
	scope := "github.com/fanout-inspector/inspector/recorder"
	p.tracer = tp.Tracer(scope, trace.WithInstrumentationVersion(m.Inspector))

	mp := sdkmetric.NewMeterProvider(sdkmetric.WithResource(res),
		sdkmetric.WithReader(sdkmetric.NewPeriodicReader(&countingMetricExporter{Exporter: mexp, p: p})))
	p.provMu.Lock()
	p.tp, p.mp = tp, mp
	p.provMu.Unlock()
	p.hist, err = mp.Meter(scope, metric.WithInstrumentationVersion(m.Inspector)).Float64Histogram(
		"mcp.client.operation.duration",
		metric.WithUnit("s"),
		metric.WithDescription("The duration of the MCP requests the client sent, from sending to the answer."),
		metric.WithExplicitBucketBoundaries(export.OperationDurationBounds...))
	if err != nil {
		p.noteError(err)
	}
}

func (p *Push) meta() recorder.Meta { return p.metaV }

// work hands queued spans to the SDK until Close.
func (p *Push) work() {
	defer close(p.done)
	w := worker{p: p, events: map[recorder.SpanID][]recorder.Event{}, rounds: map[recorder.SpanID][]*recorder.Span{}}
	for {
		select {
		case it := <-p.queue:
			w.handle(it)
		case <-p.stop:
			for {
				select {
				case it := <-p.queue:
					w.handle(it)
				default:
					w.finish()
					return
				}
			}
		}
	}
}

// Close stops observing, pushes what is queued and flushes the SDK,
// waiting at most the flush timeout (or until ctx ends), and returns
// what was delivered. Later calls return the same.
func (p *Push) Close(ctx context.Context) Stats {
	p.once.Do(func() {
		ctx, cancel := context.WithTimeout(ctx, p.opts.FlushTimeout)
		defer cancel()
		close(p.stop)
		select {
		case <-p.done:
		case <-ctx.Done():
		}
		p.provMu.Lock()
		tp, mp := p.tp, p.mp
		p.provMu.Unlock()
		var wg sync.WaitGroup
		if tp != nil {
			wg.Add(1)
			go func() { defer wg.Done(); p.noteError(tp.Shutdown(ctx)) }()
		}
		if mp != nil {
			wg.Add(1)
			go func() { defer wg.Done(); p.noteError(mp.Shutdown(ctx)) }()
		}
		wg.Wait()
	})
	return p.Stats()
}

// Stats returns what was delivered so far.
func (p *Push) Stats() Stats {
	p.errMu.Lock()
	last := p.lastErr
	p.errMu.Unlock()
	spans, pushed := p.spans.Load(), p.pushed.Load()
	return Stats{
		Endpoint: p.endpoint, Spans: spans, Pushed: pushed, Dropped: max(spans-pushed, 0),
		MetricExportsFailed: p.failedMetrics.Load(),
		SlowestExportMS:     float64(time.Duration(p.slowest.Load()).Microseconds()) / 1000,
		Error:               last,
	}
}

// countingExporter counts the spans the collector accepted and times
// each export call.
type countingExporter struct {
	sdktrace.SpanExporter
	p *Push
}

func (c *countingExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	start := time.Now()
	err := c.SpanExporter.ExportSpans(ctx, spans)
	took := int64(time.Since(start))
	for {
		old := c.p.slowest.Load()
		if took <= old || c.p.slowest.CompareAndSwap(old, took) {
			break
		}
	}
	if err != nil {
		c.p.noteError(err)
		return err
	}
	c.p.pushed.Add(int64(len(spans)))
	return nil
}

// countingMetricExporter counts failed metric exports.
type countingMetricExporter struct {
	sdkmetric.Exporter
	p *Push
}

func (c *countingMetricExporter) Export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	err := c.Exporter.Export(ctx, rm)
	if err != nil {
		c.p.failedMetrics.Add(1)
		c.p.noteError(err)
	}
	return err
}
