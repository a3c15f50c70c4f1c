package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"time"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/load"
	"github.com/fanout-inspector/inspector/recorder"
)

// Connect to the embedded demo server, answer sampling serially with
// 100ms of latency, and let the demo's fanout tool send 3 sampling
// requests at once: the recording shows they were served one at a time.
func Example() {
	ctx := context.Background()
	policy := engine.DefaultAnswerPolicy()
	policy.Dispatch, _ = engine.ParseDispatch("serial")
	policy.Latency, _ = engine.ParseLatency("100ms")

	rec := recorder.New(recorder.Meta{Title: "serial fan-out"})
	s, err := engine.Connect(ctx, engine.Target{Transport: engine.TransportDemo}, policy, rec)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	res, err := load.Run(ctx, []*engine.Session{s}, load.Workload{Tool: "fanout", Args: json.RawMessage(`{"n":3,"kind":"sampling"}`)}, nil)
	if err != nil {
		log.Fatal(err)
	}
	inFlight, pending := recorder.Peaks(recorder.Steps(rec.Snapshot()))
	fmt.Printf("calls ok: %d of %d\n", res.OK, res.Total)
	fmt.Printf("took at least 300ms: %v\n", res.Elapsed >= 300*time.Millisecond)
	fmt.Printf("peak in flight %d, peak pending %d\n", inFlight, pending)
	fmt.Println("server:", rec.Snapshot().Meta.Server)
	// Output:
	// calls ok: 1 of 1
	// took at least 300ms: true
	// peak in flight 1, peak pending 3
	// server: fanout-demo 1.0.0
}

// ElicitationContent fills a form the way the inspector's accept mode
// does: defaults first, then a valid value for each field.
func ExampleElicitationContent() {
	content, err := engine.ElicitationContent(json.RawMessage(`{
		"type": "object",
		"properties": {
			"email": {"type": "string", "format": "email"},
			"count": {"type": "integer", "minimum": 1, "default": 3},
			"size":  {"type": "string", "enum": ["s", "m", "l"]}
		},
		"required": ["email", "size"]
	}`))
	if err != nil {
		log.Fatal(err)
	}
	b, _ := json.Marshal(content)
	fmt.Println(string(b))
	// Output:
	// {"count":3,"email":"user@example.com","size":"s"}
}

// ParseLatency reads the latency specs the command line and UI accept.
func ExampleParseLatency() {
	for _, spec := range []string{"500ms", "uniform:200ms-800ms", "normal:500ms,100ms", "exp:250ms"} {
		m, err := engine.ParseLatency(spec)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%-22s mean %v\n", m, m.Mean())
	}
	// Output:
	// 500ms                  mean 500ms
	// uniform:200ms-800ms    mean 500ms
	// normal:500ms,100ms     mean 500ms
	// exp:250ms              mean 250ms
}
