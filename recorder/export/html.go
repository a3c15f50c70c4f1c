package export

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"image/color"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/fanout-inspector/inspector/recorder/palette"
)

//go:embed report.html.tmpl
var reportHTML string

var reportTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"ms":  func(v float64) string { return fmtMS(v) },
	"dur": func(d time.Duration) string { return fmtMS(ms(d)) },
	"num": recorder.FormatFigure,
}).Parse(reportHTML))

// fmtMS says a time in milliseconds, or seconds from 10 s on.
func fmtMS(v float64) string {
	if v >= 10000 {
		return strconv.FormatFloat(v/1000, 'f', 2, 64) + " s"
	}
	return strconv.FormatFloat(v, 'f', 1, 64) + " ms"
}

// SlowestRequests is how many requests the HTML report lists.
const SlowestRequests = 20

// reportRun is one recording's part of an HTML report.
type reportRun struct {
	Label, Name                 string
	Meta                        recorder.Meta
	Created                     string
	Config                      string // the run's configuration, indented JSON
	Summary                     recorder.Summary
	Methods                     []methodCount
	Concurrency, Gantt, Latency template.HTML
	// Throughput and LatencyTime are the over-time charts, drawn when
	// the run made two tool calls or more.
	Throughput, LatencyTime template.HTML
	Slowest                 []*recorder.Span
	Calls                   []reportCall
	MoreCalls               int // calls with rounds past [RoundCalls]
}

// reportCall is a multi-round-trip tool call with its rounds.
type reportCall struct {
	Call   *recorder.Span
	Rounds []reportRound
}

// reportRound is one round of a call, with the client's fulfilment time
// up to the next round.
type reportRound struct {
	Span          *recorder.Span
	Fulfilment    time.Duration
	HasFulfilment bool
}

// RoundCalls is how many multi-round-trip calls the HTML report lists
// round by round (the longest first).
const RoundCalls = 20

// roundCalls lists the calls of s that have rounds, the longest first, at
// most n, and how many more there are.
func roundCalls(s *recorder.Snapshot, n int) ([]reportCall, int) {
	next := recorder.NextRounds(s)
	byCall := map[recorder.SpanID][]reportRound{}
	for _, sp := range s.Spans {
		if sp.Kind != recorder.KindRound {
			continue
		}
		f, ok := recorder.FulfilmentTime(sp, next[sp.ID])
		byCall[sp.Parent] = append(byCall[sp.Parent], reportRound{Span: sp, Fulfilment: f, HasFulfilment: ok})
	}
	var calls []reportCall
	for _, sp := range s.Spans {
		if rs, ok := byCall[sp.ID]; ok && sp.Kind == recorder.KindTool {
			slices.SortStableFunc(rs, func(a, b reportRound) int { return int(a.Span.Round - b.Span.Round) })
			calls = append(calls, reportCall{Call: sp, Rounds: rs})
		}
	}
	slices.SortStableFunc(calls, func(a, b reportCall) int {
		return -cmpDuration(recorder.SpanEnd(s, a.Call)-a.Call.Received, recorder.SpanEnd(s, b.Call)-b.Call.Received)
	})
	if len(calls) > n {
		return calls[:n], len(calls) - n
	}
	return calls, 0
}

func cmpDuration(a, b time.Duration) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

type methodCount struct {
	Name  string
	Count int
}

// WriteHTML writes a self-contained HTML report (one file: styles and
// charts inline as SVG, nothing fetched from the network). With one
// snapshot: its summary, verdict, concurrency chart, timeline, latency
// histogram and slowest requests. With two: both summaries side by side,
// their differences (see [Compare]), and each pair of charts on shared
// scales: both timelines and concurrency charts on one time axis, both
// latency histograms in the same bins with the same height. Colours are
// the app's (package recorder/palette).
func WriteHTML(w io.Writer, snaps ...*recorder.Snapshot) error {
	if len(snaps) == 0 || len(snaps) > 2 {
		return fmt.Errorf("html report: give one recording, or two to compare (got %d)", len(snaps))
	}
	for i, s := range snaps {
		if s == nil {
			return fmt.Errorf("html report: recording %d is missing", i+1)
		}
	}
	data := struct {
		Title       string
		Compare     bool
		Runs        []reportRun
		Differences []recorder.Difference
		Inspector   string
		Palette     template.CSS
		Legend      []legendItem
		OverTime    bool // a run has the over-time charts
	}{Compare: len(snaps) == 2, Inspector: snaps[0].Meta.Inspector, Palette: paletteCSS(), Legend: reportLegend()}
	sc := chartScale{}
	if data.Compare {
		sc = scaleOf(snaps...)
	}
	for i, s := range snaps {
		run := reportRun{
			Label: string(rune('A' + i)), Name: titleOf(s), Meta: s.Meta,
			Created: s.Meta.Created.UTC().Format("2006-01-02 15:04:05 MST"),
			Summary: recorder.Summarize(s),
		}
		if len(s.Meta.Config) > 0 {
			var out bytes.Buffer
			if json.Indent(&out, s.Meta.Config, "", "  ") == nil {
				run.Config = out.String()
			} else {
				run.Config = string(s.Meta.Config)
			}
		}
		for m, n := range run.Summary.ServerRequests.ByMethod {
			run.Methods = append(run.Methods, methodCount{m, n})
		}
		slices.SortFunc(run.Methods, func(a, b methodCount) int { return cmpString(a.Name, b.Name) })
		var err error
		if run.Concurrency, err = inlineSVG(s, ChartConcurrency, 1200, 320, sc); err != nil {
			return err
		}
		if run.Gantt, err = inlineSVG(s, ChartGantt, 1200, ganttHeight(s), sc); err != nil {
			return err
		}
		lw := 1200
		if data.Compare {
			lw = 600
		}
		if run.Latency, err = inlineSVG(s, ChartLatency, lw, 300, sc); err != nil {
			return err
		}
		if run.Summary.ToolCalls.Total >= 2 {
			data.OverTime = true
			if run.Throughput, err = inlineSVG(s, ChartThroughput, 1200, 260, sc); err != nil {
				return err
			}
			if run.LatencyTime, err = inlineSVG(s, ChartLatencyTime, 1200, 260, sc); err != nil {
				return err
			}
		}
		run.Slowest = recorder.Slowest(s, SlowestRequests)
		run.Calls, run.MoreCalls = roundCalls(s, RoundCalls)
		data.Runs = append(data.Runs, run)
	}
	if data.Compare {
		if data.Runs[0].Name == data.Runs[1].Name {
			// Same title twice: tell them apart by when they were made.
			for i := range data.Runs {
				data.Runs[i].Name += ", " + data.Runs[i].Created
			}
		}
		data.Title = fmt.Sprintf("Fanout Inspector: %s vs %s", data.Runs[0].Name, data.Runs[1].Name)
		data.Differences = recorder.Compare(data.Runs[0].Summary, data.Runs[1].Summary)
	} else {
		data.Title = "Fanout Inspector: " + data.Runs[0].Name
	}
	if err := reportTemplate.Execute(w, data); err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	return nil
}

// legendItem is one colour of the report's legend: Class is its CSS class.
type legendItem struct{ Class, Label string }

// reportLegend lists the colours of the report's timelines.
func reportLegend() []legendItem {
	var items []legendItem
	for _, k := range palette.Kinds {
		items = append(items, legendItem{"kind-" + k.String(), k.String()})
	}
	return append(items,
		legendItem{"stalled", "stalled (read, not yet seen by the client)"},
		legendItem{"failed", "failed (outline)"})
}

// paletteCSS is the report's colours as CSS: one custom property and one
// class per colour of the palette, and the verdicts' boxes.
func paletteCSS() template.CSS {
	type entry struct {
		name string
		c    color.RGBA
	}
	entries := []entry{}
	for _, k := range palette.Kinds {
		entries = append(entries, entry{"kind-" + k.String(), palette.Kind(k)})
	}
	entries = append(entries, entry{"stalled", palette.Stalled}, entry{"failed", palette.Failed},
		entry{"fulfil", palette.Fulfil}, entry{"in-flight", palette.InFlight}, entry{"pending", palette.Pending})
	var b strings.Builder
	b.WriteString(":root {")
	for _, e := range entries {
		fmt.Fprintf(&b, " --%s: %s;", e.name, palette.Hex(e.c))
	}
	b.WriteString(" }\n")
	for _, e := range entries {
		fmt.Fprintf(&b, ".sw.%s { color: var(--%s); }\n", e.name, e.name)
	}
	white := color.RGBA{255, 255, 255, 255}
	for _, v := range []string{recorder.VerdictSerialized, recorder.VerdictBounded, recorder.VerdictPartial,
		recorder.VerdictConcurrent, recorder.VerdictTooFast, recorder.VerdictNoFanout} {
		c := palette.Verdict(v)
		fmt.Fprintf(&b, ".verdict.%s { background: %s; border-color: %s; }\n", v, palette.Hex(palette.Mix(white, c, 0.12)), palette.Hex(c))
	}
	return template.CSS(b.String())
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// titleOf names a recording: its title, else its target, else its date.
func titleOf(s *recorder.Snapshot) string {
	switch {
	case s.Meta.Title != "":
		return s.Meta.Title
	case s.Meta.Target != "":
		return s.Meta.Target
	case !s.Meta.Created.IsZero():
		return "recording of " + s.Meta.Created.UTC().Format("2006-01-02 15:04:05")
	}
	return "recording"
}

// ganttHeight gives each request a row of 14 pixels, within 200..900.
func ganttHeight(s *recorder.Snapshot) int {
	return min(900, max(200, 110+14*len(s.Spans)))
}

// inlineSVG draws a chart as SVG markup to put in the page. The SVG comes
// from our own renderer, whose text is escaped, so it is trusted here.
func inlineSVG(s *recorder.Snapshot, c Chart, width, height int, sc chartScale) (template.HTML, error) {
	var buf bytes.Buffer
	if err := renderScaled(&buf, s, c, width, height, svgRenderer, sc); err != nil {
		return "", err
	}
	svg := buf.Bytes()
	if i := bytes.Index(svg, []byte("<svg")); i > 0 {
		svg = svg[i:] // drop an XML declaration, not allowed inside HTML
	} else if i < 0 {
		return "", errors.New("html report: the chart renderer gave no SVG")
	}
	return template.HTML(svg), nil
}
