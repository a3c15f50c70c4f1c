package recorder

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestRedactURL(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"http://localhost:8080/mcp", "http://localhost:8080/mcp"},
		{"http://user:hunter2@host/mcp?token=abc", "http://REDACTED:REDACTED@host/mcp?token=REDACTED"},
		{"https://alice@host:443/a/b", "https://REDACTED@host:443/a/b"},
		{"http://host/mcp?page=2&access_token=x.y.z&limit=10", "http://host/mcp?page=2&access_token=REDACTED&limit=10"},
		{"http://host/?API_KEY=k&apiKey=k2&x-api-key=k3&key=k4", "http://host/?API_KEY=REDACTED&apiKey=REDACTED&x-api-key=REDACTED&key=REDACTED"},
		{"http://host/?client_secret=s&password=p&pass=p&pwd=p&auth=a&Authorization=Bearer%20t",
			"http://host/?client_secret=REDACTED&password=REDACTED&pass=REDACTED&pwd=REDACTED&auth=REDACTED&Authorization=REDACTED"},
		{"http://host/?sig=1&X-Amz-Signature=2&session=3&jwt=4&code=5&credential=6&id_token=7",
			"http://host/?sig=REDACTED&X-Amz-Signature=REDACTED&session=REDACTED&jwt=REDACTED&code=REDACTED&credential=REDACTED&id_token=REDACTED"},
		// Names that merely look alike are kept: they are not credentials.
		{"http://host/?author=ann&zipcode=12345&q=token&keyword=go&sort=asc", "http://host/?author=ann&zipcode=12345&q=token&keyword=go&sort=asc"},
		{"http://host/?token=", "http://host/?token="},
		{"http://host/cb#access_token=abc&state=1", "http://host/cb#access_token=REDACTED&state=1"},
		// Not a valid URL (a space in the host): still redacted.
		{"http://us er:pw@ho st/?token=abc", "http://REDACTED:REDACTED@ho st/?token=REDACTED"},
		{"localhost:8080/mcp?token=abc", "localhost:8080/mcp?token=REDACTED"},
	} {
		if got := RedactURL(tc.in); got != tc.want {
			t.Errorf("RedactURL(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

func TestURLSecrets(t *testing.T) {
	got := URLSecrets("http://us%40er:p%2Fw@host/mcp?page=2&token=t%20k&x=1#sig=abc")
	want := []string{"us@er", "p/w", "t k", "abc"}
	if !slices.Equal(got, want) {
		t.Errorf("URLSecrets = %q, want %q", got, want)
	}
	if got := URLSecrets("http://host/mcp?page=2"); len(got) != 0 {
		t.Errorf("URLSecrets of a URL without credentials = %q, want none", got)
	}
}

func TestRedactURLsIn(t *testing.T) {
	in := `connecting to http: x: Post "http://bob:***@127.0.0.1:1/mcp?token=s3cr3t&q=1": dial tcp: connection refused; see https://example.invalid/?sig=zz`
	want := `connecting to http: x: Post "http://REDACTED:REDACTED@127.0.0.1:1/mcp?token=REDACTED&q=1": dial tcp: connection refused; see https://example.invalid/?sig=REDACTED`
	if got := RedactURLsIn(in); got != want {
		t.Errorf("RedactURLsIn\n got %s\nwant %s", got, want)
	}
}

// secretRecording records a run in which the server echoed secrets in
// every field it can reach, after the secrets were registered.
func secretRecording(t *testing.T, secrets ...string) *Recording {
	t.Helper()
	rec := New(Meta{Title: "run on http://host/mcp?token=" + secrets[0]})
	rec.AddSecrets(secrets...)
	for i, secret := range secrets {
		esc, _ := json.Marshal(secret) // JSON-escaped, with \u003c for <
		s := NewSpan("s1", Incoming, "sampling/createMessage")
		s.Received = 1
		s.Params = json.RawMessage(`{"messages":[{"content":{"type":"text","text":` + string(esc) + `}}]}`)
		id := rec.Begin(s)
		rec.Update(id, func(s *Span) {
			s.Queued, s.Serving, s.Answered = 2, 3, 4
			s.Status = StatusError
			s.Error = "server said: Authorization: Bearer " + secret
			s.Result = json.RawMessage(`{"echo":"` + strings.ReplaceAll(secret, `"`, `\"`) + `","n":` + string(rune('0'+i)) + `}`)
		})
		rec.AddEvent(Event{At: 5, Session: "s1", Kind: EventStderr, Text: "env: SECRET=" + secret})
		rec.AddEvent(Event{At: 6, Session: "s1", Kind: EventLog, Data: json.RawMessage(`{"header":` + string(esc) + `}`)})
	}
	rec.SetMeta(func(m *Meta) {
		m.Server = "echo " + secrets[0]
		m.Config = json.RawMessage(`{"x":"` + secrets[0] + `"}`)
	})
	return rec
}

// TestRecordingScrubsSecrets pins that a registered secret reaches neither
// the snapshot nor any file, in any of its forms.
func TestRecordingScrubsSecrets(t *testing.T) {
	secrets := []string{"tok-1234567890", `p<a>ss"w&rd`, "shhh-s3c"}
	rec := secretRecording(t, secrets...)
	snap := rec.Snapshot()
	dir := t.TempDir()
	files := map[string][]byte{}
	var buf bytes.Buffer
	if err := Save(&buf, snap); err != nil {
		t.Fatal(err)
	}
	files["recording"] = slices.Clone(buf.Bytes())
	jpath := filepath.Join(dir, "j.jsonl")
	j, err := OpenJournal(jpath, rec)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	files["journal"], _ = os.ReadFile(jpath)

	for _, secret := range secrets {
		esc, _ := json.Marshal(secret)
		forms := []string{secret, strings.Trim(string(esc), `"`)}
		for name, data := range files {
			for _, f := range forms {
				if bytes.Contains(data, []byte(f)) {
					t.Errorf("%s contains the secret %q as %q", name, secret, f)
				}
			}
		}
	}
	if !bytes.Contains(files["recording"], []byte(Redacted)) {
		t.Errorf("the recording does not say %s where the secrets were", Redacted)
	}
	if !json.Valid(files["recording"]) {
		t.Error("the recording is not valid JSON after scrubbing")
	}
	for _, s := range snap.Spans {
		if !json.Valid(s.Params) || !json.Valid(s.Result) {
			t.Errorf("span %d: params %s / result %s not valid JSON after scrubbing", s.ID, s.Params, s.Result)
		}
	}
}

// TestAddSecretsIgnoresShortValues: values under MinSecretLen bytes are
// not scrubbed (they would match ordinary text everywhere).
func TestAddSecretsIgnoresShortValues(t *testing.T) {
	rec := New(Meta{})
	rec.AddSecrets("on", "dev", "")
	rec.AddEvent(Event{Kind: EventLog, Text: "dev server on"})
	if got := rec.Snapshot().Events[0].Text; got != "dev server on" {
		t.Errorf("text %q, want it untouched", got)
	}
}

// TestAddSecretsScrubsWhatComesAfter: a secret applies to what enters
// the recording after it is registered; what is stored is not scanned
// again (that cost grew with the recording for every new credential).
func TestAddSecretsScrubsWhatComesAfter(t *testing.T) {
	rec := New(Meta{Target: "x sesame-1"})
	s := NewSpan("s1", Outgoing, "tools/call")
	s.Params = json.RawMessage(`{"a":"sesame-1"}`)
	rec.Begin(s)
	rec.AddEvent(Event{Kind: EventStderr, Text: "open sesame-1"})
	rec.AddSecrets("sesame-1")
	rec.Begin(s)
	rec.AddEvent(Event{Kind: EventStderr, Text: "open sesame-1"})
	snap := rec.Snapshot()
	if snap.Meta.Target != "x REDACTED" {
		t.Errorf("target %q, want the secret redacted", snap.Meta.Target)
	}
	if string(snap.Spans[0].Params) != `{"a":"sesame-1"}` || snap.Events[0].Text != "open sesame-1" {
		t.Errorf("what was stored before changed: %s %q", snap.Spans[0].Params, snap.Events[0].Text)
	}
	if string(snap.Spans[1].Params) != `{"a":"REDACTED"}` || snap.Events[1].Text != "open REDACTED" {
		t.Errorf("after AddSecrets: %s %q", snap.Spans[1].Params, snap.Events[1].Text)
	}
}

// TestScrubKeepsStructure: a secret is replaced inside JSON string values
// only, however the string is escaped; keys, numbers and literals that
// hold the same characters stay as they were.
func TestScrubKeepsStructure(t *testing.T) {
	rec := New(Meta{})
	rec.AddSecrets("12345678", "truetrue", "sk-Secret-1")
	cases := []struct{ in, want string }{
		{`{"n":123456789,"12345678":"id 12345678","ok":true}`, `{"n":123456789,"12345678":"id REDACTED","ok":true}`},
		{`[truetrue, "truetrue", {"truetrue": [1, "x"]}]`, `[truetrue, "REDACTED", {"truetrue": [1, "x"]}]`},
		{`{"k":"\u0073k-Secret-1 and \"sk-Secret-1\""}`, `{"k":"REDACTED and \"REDACTED\""}`},
		{`{"text":"{\"key\":\"sk-Secret-1\"}","a":[{"b":"x"},"sk-Secret-1"]}`, `{"text":"{\"key\":\"REDACTED\"}","a":[{"b":"x"},"REDACTED"]}`},
		{`{"unterminated":"sk-Secret-1`, `{"unterminated":"REDACTED`},
	}
	for _, c := range cases {
		s := NewSpan("s1", Outgoing, "tools/call")
		s.Result = json.RawMessage(c.in)
		id := rec.Begin(s)
		if got := string(rec.Span(id).Result); got != c.want {
			t.Errorf("scrubbed %s\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}

// TestAddSecretsCostsNewDataOnly: with 20,000 spans stored, 4,000 new
// secrets, each followed by a span, take what 4,000 spans take; a
// rescan per secret (80 million span scrubs) took minutes.
func TestAddSecretsCostsNewDataOnly(t *testing.T) {
	rec := New(Meta{})
	s := NewSpan("s1", Outgoing, "tools/call")
	s.Params = json.RawMessage(`{"name":"whoami","arguments":{"who":"someone in particular"}}`)
	for range 20000 {
		rec.Begin(s)
	}
	start := time.Now()
	for i := range 4000 {
		rec.AddSecrets(fmt.Sprintf("tok-%06d-x9Q", i))
		s.Result = json.RawMessage(fmt.Sprintf(`{"content":[{"type":"text","text":"you are Bearer tok-%06d-x9Q"}]}`, i))
		id := rec.Begin(s)
		if got := string(rec.Span(id).Result); got != `{"content":[{"type":"text","text":"you are Bearer REDACTED"}]}` {
			t.Fatalf("result %s, want the token redacted", got)
		}
		if time.Since(start) > 10*time.Second {
			t.Fatalf("only %d secrets added in 10 s", i)
		}
	}
	t.Logf("4,000 secrets and spans in %v", time.Since(start))
}

// TestLooksSecret: a value from a place not named for credentials counts
// as one only when it looks like one.
func TestLooksSecret(t *testing.T) {
	for v, want := range map[string]bool{
		"true": false, "text": false, "info": false, "production": false, "localhost:8080": false,
		"/usr/local/bin": false, "2026-12-01T00:00:00": false, "http://u:p@host/": false, "hello world 12345678": false,
		"sk-9fQ2xLr7Tz": true, "ghp_a8d9f7e6c5b4a3d2e1f0": true, "0123456789abcdef0123": true, "aaaaaaaaaaaaaaaa1111": false,
	} {
		if got := LooksSecret(v); got != want {
			t.Errorf("LooksSecret(%q) = %v, want %v", v, got, want)
		}
	}
}

func TestRecordingScrubText(t *testing.T) {
	rec := New(Meta{})
	rec.AddSecrets("Bearer abcdef")
	got := rec.Scrub(`Post "http://u:***@h/mcp?token=zz": refused (Bearer abcdef)`)
	want := `Post "http://REDACTED:REDACTED@h/mcp?token=REDACTED": refused (REDACTED)`
	if got != want {
		t.Errorf("Scrub\n got %s\nwant %s", got, want)
	}
}

// TestRedactURLsInBrokenURL: a URL that a space cut short still loses its
// query's credentials.
func TestRedactURLsInBrokenURL(t *testing.T) {
	in := `parse "http://u:p@bad host/mcp?token=abc&page=2": invalid character " " in host name`
	want := `parse "http://REDACTED:REDACTED@bad host/mcp?token=REDACTED&page=2": invalid character " " in host name`
	if got := RedactURLsIn(in); got != want {
		t.Errorf("RedactURLsIn\n got %s\nwant %s", got, want)
	}
}

// BenchmarkAppendScrubbed is BenchmarkAppend on a recording with secrets
// registered (a URL token, two headers, an env value) and spans that carry
// params and a result of a few hundred bytes, as a sampling request does.
func BenchmarkAppendScrubbed(b *testing.B) {
	rec := New(Meta{})
	rec.AddSecrets("tok-1234567890", "Bearer abcdefgh", "abcdefgh", "env-value-1")
	params := json.RawMessage(`{"messages":[{"role":"user","content":{"type":"text","text":"` + strings.Repeat("lorem ipsum ", 30) + `"}}],"maxTokens":100}`)
	result := json.RawMessage(`{"role":"assistant","content":{"type":"text","text":"reply 1"},"model":"fanout-inspector","stopReason":"endTurn"}`)
	b.ReportAllocs()
	for b.Loop() {
		s := NewSpan("s", Incoming, "sampling/createMessage")
		s.Received = 1
		s.Params = params
		id := rec.Begin(s)
		rec.Update(id, func(s *Span) { s.Queued = 2 })
		rec.Update(id, func(s *Span) { s.Serving = 3 })
		rec.Update(id, func(s *Span) { s.Answered = 4; s.Status = StatusOK; s.Result = result })
	}
}
