package export

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/fanout-inspector/inspector/recorder"
)

// TestExportsScrubSecrets pins that a secret registered with the
// recording reaches no export, in any of its forms: the recording scrubs
// it before a snapshot is taken, and no export brings it back.
func TestExportsScrubSecrets(t *testing.T) {
	secrets := []string{"tok-1234567890", `p<a>ss"w&rd`, "shhh-s3c"}
	rec := recorder.New(recorder.Meta{Title: "run on http://host/mcp?token=" + secrets[0]})
	rec.AddSecrets(secrets...)
	for i, secret := range secrets {
		esc, _ := json.Marshal(secret)
		s := recorder.NewSpan("s1", recorder.Incoming, "sampling/createMessage")
		s.Received = 1
		s.Params = json.RawMessage(`{"messages":[{"content":{"type":"text","text":` + string(esc) + `}}]}`)
		id := rec.Begin(s)
		rec.Update(id, func(s *recorder.Span) {
			s.Queued, s.Serving, s.Answered = 2, 3, 4
			s.Status = recorder.StatusError
			s.Error = "server said: Authorization: Bearer " + secret
			s.Result = json.RawMessage(`{"echo":"` + strings.ReplaceAll(secret, `"`, `\"`) + `","n":` + string(rune('0'+i)) + `}`)
		})
		rec.AddEvent(recorder.Event{At: 6, Session: "s1", Kind: recorder.EventLog, Data: json.RawMessage(`{"header":` + string(esc) + `}`)})
		rec.AddEvent(recorder.Event{At: 5, Session: "s1", Kind: recorder.EventStderr, Text: "env: SECRET=" + secret})
	}
	snap := rec.Snapshot()
	for name, write := range map[string]func(*bytes.Buffer) error{
		"chrome": func(b *bytes.Buffer) error { return WriteChromeTrace(b, snap) },
		"otlp":   func(b *bytes.Buffer) error { return WriteOTLP(b, snap) },
		"csv":    func(b *bytes.Buffer) error { return WriteCSV(b, snap) },
		"html":   func(b *bytes.Buffer) error { return WriteHTML(b, snap) },
		"svg":    func(b *bytes.Buffer) error { return WriteChartSVG(b, snap, ChartGantt, 400, 200) },
	} {
		var buf bytes.Buffer
		if err := write(&buf); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if (name == "chrome" || name == "otlp") && !json.Valid(buf.Bytes()) {
			t.Errorf("%s is not valid JSON after scrubbing", name)
		}
		if !bytes.Contains(buf.Bytes(), []byte("sampling")) && name != "svg" {
			t.Errorf("%s holds no request at all: the test checks nothing", name)
		}
		for _, secret := range secrets {
			esc, _ := json.Marshal(secret)
			for _, f := range []string{secret, strings.Trim(string(esc), `"`)} {
				if bytes.Contains(buf.Bytes(), []byte(f)) {
					t.Errorf("%s contains the secret %q as %q", name, secret, f)
				}
			}
		}
	}
}

// FuzzExport checks that whatever loads exports without panicking, and
// that the JSON exports are valid JSON.
func FuzzExport(f *testing.F) {
	var buf bytes.Buffer
	recorder.Save(&buf, fixedSnapshot())
	f.Add(buf.Bytes())
	f.Add([]byte(`{"format":"fanout-inspector-recording","version":1,"meta":{},"spans":[{"id":1,"direction":"incoming","received":-1,"queued":-1,"serving":-1,"answered":-1}]}`))
	f.Add([]byte(`{"format":"fanout-inspector-recording","version":1,"meta":{"title":"t\"<&>\u0001é"},"spans":[{"id":1,"session":"s\"\\\n\u00e9\ud800","direction":"outgoing","method":"tools/call","kind":"tool","name":"\u2028x","received":0,"queued":0,"serving":0,"answered":5,"status":"error","error":"bad\tthing"}],"events":[{"at":1,"session":"s","kind":"log","text":"\u0000","span":1}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		snap, err := recorder.Load(bytes.NewReader(data))
		if err != nil {
			return
		}
		var out bytes.Buffer
		for name, write := range map[string]func(*bytes.Buffer) error{
			"chrome trace": func(b *bytes.Buffer) error { return WriteChromeTrace(b, snap) },
			"otlp":         func(b *bytes.Buffer) error { return WriteOTLP(b, snap) },
		} {
			out.Reset()
			if err := write(&out); err != nil {
				t.Fatal(err)
			}
			if !json.Valid(out.Bytes()) {
				t.Fatalf("the %s export is not valid JSON", name)
			}
		}
		if err := WriteCSV(&out, snap); err != nil {
			t.Fatal(err)
		}
	})
}
