package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"time"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/load"
	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Answer the demo server's sampling requests with a model behind an
// OpenAI-compatible chat-completions API (here a stand-in on 127.0.0.1),
// its key taken from an environment variable: each span carries the
// model's answer and its token counts, and the recording never the key.
func ExampleSamplingEndpoint() {
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // POST /v1/chat/completions, Authorization: Bearer sk-example-key
		fmt.Fprint(w, `{"model":"tiny-1","choices":[{"message":{"role":"assistant","content":"Hello!"},"finish_reason":"stop"}],"usage":{"prompt_tokens":20,"completion_tokens":3}}`)
	}))
	defer model.Close()
	os.Setenv("EXAMPLE_MODEL_KEY", "sk-example-key")

	policy := engine.DefaultAnswerPolicy()
	policy.SamplingEndpoint = engine.SamplingEndpoint{URL: model.URL + "/v1", Model: "tiny", KeyEnv: "EXAMPLE_MODEL_KEY", Timeout: 10 * time.Second}
	rec := recorder.New(recorder.Meta{Title: "sampling from a model"})
	ctx := context.Background()
	s, err := engine.Connect(ctx, engine.Target{Transport: engine.TransportDemo}, policy, rec)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	if _, err := load.Run(ctx, []*engine.Session{s}, load.Workload{Tool: "fanout", Args: json.RawMessage(`{"n":2}`)}, nil); err != nil {
		log.Fatal(err)
	}
	for _, sp := range rec.Snapshot().Spans {
		if sp.Method != "sampling/createMessage" {
			continue
		}
		var res mcp.CreateMessageResult
		if err := json.Unmarshal(sp.Result, &res); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: %q from %s (%s), %d tokens in, %d out\n", sp.Status, res.Content.(*mcp.TextContent).Text, res.Model, res.StopReason, sp.InputTokens, sp.OutputTokens)
	}
	// Output:
	// ok: "Hello!" from tiny-1 (endTurn), 20 tokens in, 3 out
	// ok: "Hello!" from tiny-1 (endTurn), 20 tokens in, 3 out
}
