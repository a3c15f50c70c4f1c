package export

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
)

func TestHTMLReport(t *testing.T) {
	cases := []struct {
		name  string
		snaps []*recorder.Snapshot
		want  []string
		svgs  int
	}{
		{"one recording", []*recorder.Snapshot{fixedSnapshot()}, []string{
			"Fanout Inspector: fixture", "serialized: 5 requests arrived together",
			"Slowest requests", "elicitation/create", "user declined", `class="verdict serialized"`,
			"Peak pending (queued + serving)</td><td>5</td>",
			"Configuration of the run", "&#34;policy&#34;: &#34;serial&#34;",
			"Throughput and latency over time",
			"tokens (in / out, from the sampling endpoint)</td><td>12 / 5</td>",
		}, 5},
		{"empty", []*recorder.Snapshot{emptySnapshot()}, []string{"no fan-out", "No finished requests."}, 3},
		{"one call", []*recorder.Snapshot{oneRequestSnapshot()}, nil, 3},
		{"comparison", []*recorder.Snapshot{fixedSnapshot(), loadSnapshot(300, 2)}, []string{
			"fixture vs load", "Differences (A → B)", "<h2>A: fixture</h2>", "<h2>B: load</h2>",
			"verdict: serialized → ",
			"Throughput and latency over time", "Throughput: tool calls per second",
		}, 10},
		{"sampled", []*recorder.Snapshot{sampledSnapshot()}, []string{
			"of 300 spans; statistics are exact: the timeline shows the spans kept, the figures count every span.",
			"Tool calls (ok / failed)</td><td>300 (300 / 0)</td>",
		}, 5},
		{"load test", []*recorder.Snapshot{rampSnapshot()}, []string{
			"<h2>Throughput and latency over time</h2>", "Throughput: tool calls per second, peak 50 started, 49 finished",
			"Latency over time: tool calls finished each second",
			"Tool call latency (HDR, 3 significant digits): p50 ", " · p99.9 ", "; 18 failed (error).",
		}, 5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteHTML(&buf, c.snaps...); err != nil {
				t.Fatal(err)
			}
			page := buf.String()
			for _, w := range c.want {
				if !strings.Contains(page, w) {
					t.Errorf("report lacks %q", w)
				}
			}
			if n := strings.Count(page, "<svg"); n != c.svgs {
				t.Errorf("%d inline charts, want %d", n, c.svgs)
			}
			// Self-contained: nothing is loaded from anywhere.
			if m := regexp.MustCompile(`(?i)(src|href)\s*=|@import|url\(`).FindString(page); m != "" {
				t.Errorf("report refers to an outside resource: %q", m)
			}
			if strings.Contains(page, "<?xml") {
				t.Error("an XML declaration inside HTML")
			}
		})
	}
	t.Run("escapes", func(t *testing.T) {
		snap := fixedSnapshot()
		snap.Meta.Title = `<script>alert(1)</script>`
		var buf bytes.Buffer
		if err := WriteHTML(&buf, snap); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(buf.String(), "<script>") {
			t.Error("a title was not escaped")
		}
	})
	t.Run("wrong count", func(t *testing.T) {
		if err := WriteHTML(&bytes.Buffer{}); err == nil {
			t.Error("no recordings gave no error")
		}
		s := fixedSnapshot()
		if err := WriteHTML(&bytes.Buffer{}, s, s, s); err == nil {
			t.Error("three recordings gave no error")
		}
	})
}

func TestComparisonSharesScale(t *testing.T) {
	sc := scaleOf(fixedSnapshot(), oneRequestSnapshot())
	if sc.endMS != 3000 || sc.topReqs != 5 {
		t.Errorf("scale %+v, want the longer recording's 3000 ms and the higher peak 5", sc)
	}
	// The shorter recording's chart ends where the longer one's does.
	var buf bytes.Buffer
	if err := renderScaled(&buf, oneRequestSnapshot(), ChartGantt, 600, 300, svgRenderer, sc); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), ">3.0 s</text>") {
		t.Error("the one-request chart's time axis does not reach 3.0 s")
	}
}

// TestHTMLReportRounds pins that the report lists a multi-round-trip
// call's rounds under it, each with its own request id and outcome, and
// the client's fulfilment time between rounds.
func TestHTMLReportRounds(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteHTML(&buf, roundsSnapshot()); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, w := range []string{
		"Rounds of multi-round-trip calls",
		`<td class="text">tools/call fanout</td><td class="text">2</td>`,
		`&nbsp;&nbsp;round 1</td><td class="text">2</td><td>0.0 ms</td><td>5.0 ms</td><td class="text">input_required</td><td>3</td><td>905.0 ms</td>`,
		`&nbsp;&nbsp;round 2</td><td class="text">3</td><td>910.0 ms</td><td>5.0 ms</td><td class="text">input_required</td><td>2</td><td>305.0 ms</td>`,
		`&nbsp;&nbsp;round 3</td><td class="text">4</td><td>1220.0 ms</td><td>10.0 ms</td><td class="text">result</td><td></td><td>—</td>`,
		"wire requests / input_required rounds</td><td>3 / 2</td>",
		"Stalled (read → seen by the client; 2 messages withheld)",
		"round 1: 3 input requests served one at a time",
	} {
		if !strings.Contains(page, w) {
			t.Errorf("report lacks %q", w)
		}
	}
	// A 2025-era recording has no rounds section.
	buf.Reset()
	WriteHTML(&buf, fixedSnapshot())
	if strings.Contains(buf.String(), "Rounds of multi-round-trip calls") {
		t.Error("a recording without rounds shows a rounds section")
	}
}

// sampledSnapshot is a load test of 300 calls recorded with a cap of 50
// spans.
func sampledSnapshot() *recorder.Snapshot {
	rec := recorder.New(recorder.Meta{Title: "sampled"})
	rec.SetMaxSpans(50)
	for i := range 300 {
		s := recorder.NewSpan("s1", recorder.Outgoing, "tools/call")
		at := time.Duration(i) * time.Millisecond
		s.Name, s.Received, s.Queued, s.Serving = "echo", at, at, at
		id := rec.Begin(s)
		rec.End(id, at+5*time.Millisecond, recorder.Outcome{Status: recorder.StatusOK})
	}
	return rec.Snapshot()
}
