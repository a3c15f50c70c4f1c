// Package palette is the one set of colours of Fanout Inspector: the
// app's timeline and chart (package ui/internal/timeline) and every export that
// draws (PNG and SVG charts, the HTML report) take their colours from
// here, so that a kind or a phase reads the same wherever it is shown.
// It does not import Fyne: colours that depend on the theme (a queued bar
// is its kind's colour laid over the background) are made with [Mix] from
// the background the caller draws on.
package palette

import (
	"fmt"
	"image/color"

	"github.com/fanout-inspector/inspector/recorder"
)

// Kind colours: one hue per kind of request, readable on light and dark
// backgrounds.
var kinds = map[recorder.Kind]color.RGBA{
	recorder.KindSampling:    {59, 130, 246, 255},  // blue
	recorder.KindElicitation: {168, 85, 247, 255},  // purple
	recorder.KindRoots:       {20, 184, 166, 255},  // teal
	recorder.KindPing:        {245, 158, 11, 255},  // amber
	recorder.KindTool:        {100, 116, 139, 255}, // slate
	recorder.KindRound:       {71, 85, 105, 255},   // dark slate: a wire round of a tool call
	recorder.KindOther:       {168, 162, 158, 255}, // stone
}

// Kinds is the order of kinds in legends.
var Kinds = []recorder.Kind{
	recorder.KindTool, recorder.KindRound, recorder.KindSampling, recorder.KindElicitation,
	recorder.KindRoots, recorder.KindPing, recorder.KindOther,
}

// Kind is the colour of requests of kind k: the solid colour of their
// serving phase.
func Kind(k recorder.Kind) color.RGBA {
	if c, ok := kinds[k]; ok {
		return c
	}
	return kinds[recorder.KindOther]
}

// QueuedMix is how much of its kind's colour a queued phase has over the
// background: queued bars are pale, serving bars solid.
const QueuedMix = 0.35

// Queued is the pale colour of a request of kind k while it waits for a
// dispatch slot, drawn on the background bg.
func Queued(bg color.RGBA, k recorder.Kind) color.RGBA {
	return Mix(bg, Kind(k), QueuedMix)
}

// The colours of phases and states that are not a kind's.
var (
	// Failed outlines a request that failed, and hatches one that was
	// cancelled, timed out or aborted.
	Failed = color.RGBA{220, 38, 38, 255} // red
	// Stalled is the time a message was read off the wire but withheld
	// from the client (dispatch "inline"), drawn with pale stripes.
	Stalled = color.RGBA{219, 39, 119, 255} // pink
	// Fulfil is the client's time fulfilling a round's input requests
	// between two rounds of a multi-round-trip call.
	Fulfil = color.RGBA{202, 138, 4, 255} // gold
	// InFlight and Pending are the concurrency chart's two lines:
	// requests being served, and requests received and not yet answered.
	InFlight = color.RGBA{96, 165, 250, 255} // light blue
	Pending  = color.RGBA{251, 146, 60, 255} // light orange
)

// Event is the colour of a notification's tick.
func Event(k recorder.EventKind) color.RGBA {
	switch k {
	case recorder.EventProgress:
		return color.RGBA{22, 163, 74, 255} // green
	case recorder.EventCancelled:
		return Failed
	case recorder.EventConnection:
		return color.RGBA{234, 88, 12, 255} // orange
	case recorder.EventListChanged:
		return color.RGBA{8, 145, 178, 255} // cyan
	}
	return color.RGBA{120, 113, 108, 255} // warm grey
}

// LogLevel is the colour of a server log message at level: greys for
// debug, blue and teal for info and notice, amber for a warning, red for
// an error and a deeper red for worse.
func LogLevel(level string) color.RGBA {
	switch level {
	case "debug":
		return color.RGBA{148, 163, 184, 255} // slate
	case "info":
		return color.RGBA{37, 99, 235, 255} // blue
	case "notice":
		return color.RGBA{13, 148, 136, 255} // teal
	case "warning":
		return color.RGBA{217, 119, 6, 255} // amber
	case "error":
		return color.RGBA{220, 38, 38, 255} // red
	case "critical", "alert", "emergency":
		return color.RGBA{159, 18, 57, 255} // deep red
	}
	return color.RGBA{120, 113, 108, 255} // warm grey
}

// The colours of the verdicts: the error, warning and success colours of
// the app's theme, which its stats line shows the verdict in, so that a
// report's verdict looks like the app's.
var (
	VerdictSerialized = color.RGBA{244, 67, 54, 255}   // red
	VerdictBounded    = color.RGBA{255, 152, 0, 255}   // orange
	VerdictPartial    = VerdictBounded                 // orange
	VerdictConcurrent = color.RGBA{67, 244, 54, 255}   // green
	VerdictNone       = color.RGBA{153, 153, 153, 255} // grey: no fan-out, nothing to judge
)

// Verdict is the colour of verdict v (see the recorder.Verdict* names).
func Verdict(v string) color.RGBA {
	switch v {
	case recorder.VerdictSerialized:
		return VerdictSerialized
	case recorder.VerdictBounded:
		return VerdictBounded
	case recorder.VerdictPartial:
		return VerdictPartial
	case recorder.VerdictConcurrent:
		return VerdictConcurrent
	}
	return VerdictNone
}

// Mix returns a blended with b: t = 0 gives a, t = 1 gives b. The result
// is opaque.
func Mix(a, b color.RGBA, t float64) color.RGBA {
	f := func(x, y uint8) uint8 { return uint8(float64(x) + (float64(y)-float64(x))*t + 0.5) }
	return color.RGBA{f(a.R, b.R), f(a.G, b.G), f(a.B, b.B), 255}
}

// Hex writes c as #rrggbb, for CSS.
func Hex(c color.RGBA) string {
	return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B)
}
