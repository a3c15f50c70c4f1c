package app

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/load"
	"github.com/fanout-inspector/inspector/recorder"
)

// TestPolicyPanelSamplingEndpoint: choosing "model endpoint" and
// filling in a local chat-completions API makes the session answer
// sampling from it, with the key taken from the variable named (the
// policy holds the name, never the key); an empty URL is a problem shown
// in the panel; choosing the reply template again stops using it.
func TestPolicyPanelSamplingEndpoint(t *testing.T) {
	const key = "sk-ui-test-31415926"
	t.Setenv("UI_TEST_MODEL_KEY", key)
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if r.Header.Get("Authorization") != "Bearer "+key {
			http.Error(w, `{"error":{"message":"wrong key"}}`, http.StatusUnauthorized)
			return
		}
		fmt.Fprint(w, `{"model":"ui-model","choices":[{"message":{"content":"from the model"},"finish_reason":"length"}],"usage":{"prompt_tokens":9,"completion_tokens":3}}`)
	}))
	defer model.Close()

	newMainLoop(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	rec := recorder.New(recorder.Meta{})
	s, err := engine.Connect(ctx, engine.Target{}, engine.DefaultAnswerPolicy(), rec)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := newPolicyPanel(s.AnswerPolicy())
	p.onChanged = s.SetAnswerPolicy
	w := test.NewWindow(p)
	defer w.Close()

	if !p.endpoint.url.Disabled() {
		t.Errorf("the endpoint's URL can be typed into while sampling comes from the reply template")
	}
	p.endpoint.from.SetSelected(samplingFromEndpoint)
	if !strings.Contains(p.Problem(), "give the API's base URL") {
		t.Errorf("an endpoint without a URL shows the problem %q", p.Problem())
	}
	typeInto(p.endpoint.url, model.URL+"/v1")
	typeInto(p.endpoint.model, "small")
	typeInto(p.endpoint.keyEnv, "UI_TEST_MODEL_KEY")
	typeInto(p.endpoint.timeout, "5s")
	if p.Problem() != "" {
		t.Fatalf("problem: %s", p.Problem())
	}
	want := engine.SamplingEndpoint{URL: model.URL + "/v1", Model: "small", KeyEnv: "UI_TEST_MODEL_KEY", Timeout: 5 * time.Second}
	if got := s.AnswerPolicy().SamplingEndpoint; got != want {
		t.Fatalf("session endpoint %+v, want %+v", got, want)
	}
	if _, err := load.Run(ctx, []*engine.Session{s}, load.Workload{Tool: "fanout", Args: json.RawMessage(`{"n":2}`)}, nil); err != nil {
		t.Fatal(err)
	}
	snap := rec.Snapshot()
	n := 0
	for _, sp := range snap.Spans {
		if sp.Method == "sampling/createMessage" {
			n++
			if sp.Status != recorder.StatusOK || sp.InputTokens != 9 || sp.OutputTokens != 3 || !strings.Contains(string(sp.Result), `"from the model"`) || !strings.Contains(string(sp.Result), `"stopReason":"maxTokens"`) {
				t.Errorf("span %s %q tokens %d/%d result %s; want the model's answer, 9/3 tokens", sp.Status, sp.Error, sp.InputTokens, sp.OutputTokens, sp.Result)
			}
		}
	}
	if n != 2 {
		t.Errorf("%d sampling spans, want 2", n)
	}
	if cfg := string(snap.Meta.Config); strings.Contains(cfg, key) || !strings.Contains(cfg, `"key_env":"UI_TEST_MODEL_KEY"`) {
		t.Errorf("the recorded policy %s: want the variable's name and not the key", cfg)
	}

	p.endpoint.from.SetSelected(samplingFromReply)
	if s.AnswerPolicy().SamplingEndpoint.Enabled() || !p.endpoint.url.Disabled() {
		t.Errorf("back to the reply template: the session still asks the endpoint, or its URL can still be typed into")
	}
}
