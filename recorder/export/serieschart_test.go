package export

import (
	"bytes"
	"encoding/csv"
	"image/png"
	"strings"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
)

// rampSnapshot is an open-loop-like load test: 10 calls a second for 4 s,
// then 20, 30, 40 and 50; a call takes 5 ms plus 1 ms per second of the
// run (its p99 a little more), and every tenth fails.
func rampSnapshot() *recorder.Snapshot {
	snap := &recorder.Snapshot{Meta: recorder.Meta{Title: "ramp", Created: fixedCreated}, Version: 1}
	id := 0
	for sec, r := range []int{10, 10, 10, 10, 20, 30, 40, 50} {
		for k := range r {
			at := time.Duration(sec)*time.Second + time.Duration(k)*time.Second/time.Duration(r)
			d := time.Duration(5+sec)*time.Millisecond + time.Duration(k%10)*time.Millisecond
			id++
			s := &recorder.Span{ID: recorder.SpanID(id), Session: "load", Direction: recorder.Outgoing, Method: "tools/call",
				Kind: recorder.KindTool, Name: "echo", Received: at, Queued: at, Serving: at, Answered: at + d, Status: recorder.StatusOK}
			if id%10 == 0 {
				s.Status, s.Error = recorder.StatusError, "boom"
			}
			snap.Spans = append(snap.Spans, s)
			snap.Now = at + d
		}
	}
	return snap
}

// TestSeriesChartsGolden pins how the two over-time charts look.
func TestSeriesChartsGolden(t *testing.T) {
	for _, c := range []Chart{ChartThroughput, ChartLatencyTime} {
		t.Run(string(c), func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteChartPNG(&buf, rampSnapshot(), c, 640, 240); err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatalf("not a PNG: %v", err)
			}
			if b := img.Bounds(); b.Dx() != 640 || b.Dy() != 240 {
				t.Errorf("image %v, want 640×240", b)
			}
			checkGolden(t, "ramp."+string(c)+".png", buf.Bytes())
		})
	}
}

func TestParseSeriesCharts(t *testing.T) {
	for _, name := range []string{"throughput", "latency-time"} {
		if c, err := ParseChart(name); err != nil || string(c) != name {
			t.Errorf("ParseChart(%q) = %q, %v", name, c, err)
		}
	}
}

// TestSeriesChartsSayWhat checks the titles a reader sees.
func TestSeriesChartsSayWhat(t *testing.T) {
	for c, want := range map[Chart]string{
		ChartThroughput:  "Throughput: tool calls per second, peak 50 started, 49 finished",
		ChartLatencyTime: "Latency over time: tool calls finished each second, p99 up to 21 ms",
	} {
		var buf bytes.Buffer
		if err := WriteChartSVG(&buf, rampSnapshot(), c, 640, 240); err != nil {
			t.Fatal(err)
		}
		found := false
		for _, tx := range svgTexts(t, buf.Bytes()) {
			found = found || tx.body == want
		}
		if !found {
			t.Errorf("%s chart: no title %q", c, want)
		}
	}
}

func TestSeriesCSV(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteSeriesCSV(&buf, rampSnapshot()); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatalf("not CSV: %v", err)
	}
	if want := "t_s,width_s,started,finished,errors,in_flight,queued,p50_ms,p99_ms"; strings.Join(rows[0], ",") != want {
		t.Errorf("header %q, want %q", strings.Join(rows[0], ","), want)
	}
	// 8 seconds of calls, and the last calls finishing in a ninth
	if len(rows) != 1+9 {
		t.Fatalf("%d rows, want a header and 9 seconds", len(rows))
	}
	if got := strings.Join(rows[5], ","); !strings.HasPrefix(got, "4,1,20,20,2,1,0,") {
		t.Errorf("second 4: %q, want 20 started, 20 finished, 2 failed, 1 in flight, 0 queued", got)
	}
}
