package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/recorder"
)

// TestEndpointFlags: the endpoint flags fill the policy, and wrong ones
// are usage errors that say what to give.
func TestEndpointFlags(t *testing.T) {
	_, policy, err := parseConn(t, "--sampling-endpoint", "http://127.0.0.1:8080/v1", "--sampling-model", "llama3",
		"--sampling-key-env", "MY_KEY", "--sampling-timeout", "5s")
	want := engine.SamplingEndpoint{URL: "http://127.0.0.1:8080/v1", Model: "llama3", KeyEnv: "MY_KEY", Timeout: 5 * time.Second}
	if err != nil || policy.SamplingEndpoint != want || policy.SamplingModel != "llama3" {
		t.Errorf("endpoint flags: %+v, %v; want %+v", policy.SamplingEndpoint, err, want)
	}
	_, policy, err = parseConn(t, "--sampling-endpoint", "http://127.0.0.1:8080/v1")
	if err != nil || policy.SamplingEndpoint.KeyEnv != "OPENAI_API_KEY" || policy.SamplingEndpoint.Timeout != time.Minute || policy.SamplingEndpoint.Model != "" {
		t.Errorf("endpoint defaults: %+v, %v; want key from OPENAI_API_KEY, 1m timeout, model from the request", policy.SamplingEndpoint, err)
	}
	_, policy, err = parseConn(t, "--sampling-model", "named")
	if err != nil || policy.SamplingModel != "named" || policy.SamplingEndpoint.Enabled() {
		t.Errorf("--sampling-model alone: %+v, %v; want the model of the template answers", policy, err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--sampling-endpoint", "ftp://127.0.0.1/v1"}, "--sampling-endpoint: \"ftp://127.0.0.1/v1\": want an http:// or https:// URL"},
		{[]string{"--sampling-endpoint", " "}, "--sampling-endpoint is empty"},
		{[]string{"--sampling-timeout", "5s"}, "--sampling-timeout is for --sampling-endpoint, which is not given"},
		{[]string{"--sampling-endpoint", "http://127.0.0.1/v1", "--sampling-timeout", "0s"}, "--sampling-timeout 0s: want a positive duration"},
		{[]string{"--sampling-endpoint", "http://127.0.0.1/v1", "--sampling-reply", "hi"}, "choose one way to answer sampling"},
		{[]string{"--sampling-endpoint", "http://127.0.0.1/v1", "--sampling-key-env", "K=sk-1"}, "give the name of an environment variable, not its value"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			if _, _, err := parseConn(t, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
	if r := inspector(t, "run", "--sampling-timeout", "1s"); r.code != exitUsage || !strings.Contains(r.stderr, "--sampling-timeout is for --sampling-endpoint") {
		t.Errorf("run with a stray --sampling-timeout: exit %d, stderr %s", r.code, r.stderr)
	}
}

// TestEndpointSeedScenario is the seed scenario with a model's latency:
// the demo server fans out 5 sampling requests that a local
// chat-completions API answers in 200 ms each. Served one at a time they
// take about 5 endpoint times, concurrently about one; the token counts
// reach the recording and the summary; the key, sent as a bearer token,
// is in no file written (recording, journal, exports) and neither
// output stream, even though the model echoes it in its answer.
func TestEndpointSeedScenario(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end timing test")
	}
	const key = "sk-e2e-9f8e7d6c5b4a"
	var calls, authorized atomic.Int64
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		calls.Add(1)
		if r.Header.Get("Authorization") == "Bearer "+key {
			authorized.Add(1)
		}
		select {
		case <-time.After(200 * time.Millisecond):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"model":"tiny-1","choices":[{"message":{"role":"assistant","content":"hello (my key is %s)"},"finish_reason":"stop"}],"usage":{"prompt_tokens":21,"completion_tokens":4}}`, key)
	}))
	defer model.Close()

	elapsed := map[string]float64{}
	for _, dispatch := range []string{"serial", "concurrent"} {
		t.Run(dispatch, func(t *testing.T) {
			out, cache := t.TempDir(), t.TempDir()
			args := append([]string{"run", "--demo", "--tool", "fanout", "--args", `{"n":5}`, "--dispatch", dispatch,
				"--sampling-endpoint", model.URL + "/v1", "--sampling-model", "tiny", "--sampling-key-env", "E2E_MODEL_KEY", "--json"},
				outputFlags(out)...)
			r := inspectorEnv(t, []string{"XDG_CACHE_HOME=" + cache, "E2E_MODEL_KEY=" + key}, args...)
			if r.code != exitOK {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
			}
			s := summaryOf(t, r)
			elapsed[dispatch] = s.ElapsedMS
			if s.ServerRequests.OK != 5 || s.ServerRequests.InputTokens != 5*21 || s.ServerRequests.OutputTokens != 5*4 {
				t.Errorf("summary: %d ok, tokens %d in %d out; want 5 ok, 105 in, 20 out", s.ServerRequests.OK, s.ServerRequests.InputTokens, s.ServerRequests.OutputTokens)
			}
			snap, err := recorder.LoadFile(filepath.Join(out, "run.json"))
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, sp := range snap.Spans {
				if sp.Method != "sampling/createMessage" {
					continue
				}
				n++
				if sp.InputTokens != 21 || sp.OutputTokens != 4 || !strings.Contains(string(sp.Result), `hello (my key is REDACTED)`) {
					t.Errorf("recorded span: tokens %d/%d, result %s; want 21/4 and the model's text with the key redacted", sp.InputTokens, sp.OutputTokens, sp.Result)
				}
			}
			if n != 5 {
				t.Errorf("%d sampling spans recorded, want 5", n)
			}
			csv := readFile(t, filepath.Join(out, "run.csv"))
			if !strings.Contains(csv, ",21,4\n") {
				t.Errorf("the CSV has no token columns 21,4:\n%s", csv)
			}
			if otlp := readFile(t, filepath.Join(out, "otlp.json")); !strings.Contains(otlp, `{"key":"gen_ai.usage.input_tokens","value":{"intValue":"21"}}`) {
				t.Errorf("the OTLP export has no gen_ai.usage.input_tokens")
			}
			files := assertNoSecrets(t, []string{key}, map[string]string{"stdout": r.stdout, "stderr": r.stderr},
				out, filepath.Join(cache, "fanout-inspector", "journal"))
			if files < 8 {
				t.Errorf("%d files written, want the recording, the journal and 6 exports", files)
			}
		})
	}
	if calls.Load() != 10 || authorized.Load() != 10 {
		t.Errorf("the model got %d calls, %d with the key; want 10 and 10", calls.Load(), authorized.Load())
	}
	serial, concurrent := elapsed["serial"], elapsed["concurrent"]
	t.Logf("5 sampling requests answered by a 200 ms endpoint: serial %.0f ms, concurrent %.0f ms (%.1f×)", serial, concurrent, serial/concurrent)
	if serial < 1000 || concurrent < 200 || serial/concurrent < 3 {
		t.Errorf("serial %.0f ms, concurrent %.0f ms: want serial ≥ 1000 ms and about 5× concurrent (at least 3×)", serial, concurrent)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
