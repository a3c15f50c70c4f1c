package timeline

import (
	"image/color"

	"fyne.io/fyne/v2/theme"
	"github.com/fanout-inspector/inspector/recorder"
	"github.com/fanout-inspector/inspector/recorder/palette"
)

// The colours are the shared palette's (package recorder/palette), which
// the exports use too: a kind or a phase reads the same in the app and in
// a PNG, SVG or HTML report. Change them there, not here.

// LegendKinds is the order of kinds in legends.
var LegendKinds = palette.Kinds

// FailColor outlines a request that failed; inFlightColor and pendingColor
// are the chart's two lines.
var (
	FailColor     = palette.Failed
	inFlightColor = palette.InFlight
	pendingColor  = palette.Pending
)

// KindColor is the colour of requests of kind k.
func KindColor(k recorder.Kind) color.RGBA { return palette.Kind(k) }

// EventColor is the colour of a notification's tick.
func EventColor(k recorder.EventKind) color.RGBA { return palette.Event(k) }

func toRGBA(c color.Color) color.RGBA {
	r, g, b, a := c.RGBA()
	if a == 0 {
		return color.RGBA{}
	}
	// un-premultiply, then lay it on opaque
	return color.RGBA{uint8(r * 0xff / a), uint8(g * 0xff / a), uint8(b * 0xff / a), 255}
}

// QueuedColor is the pale colour of a request of kind k while it waits
// for a dispatch slot, on the current theme's background.
func QueuedColor(k recorder.Kind) color.RGBA {
	return palette.Queued(toRGBA(theme.Color(theme.ColorNameBackground)), k)
}

// mix returns a blended with b: t = 0 gives a, t = 1 gives b.
func mix(a, b color.RGBA, t float64) color.RGBA { return palette.Mix(a, b, t) }

// ganttPalette is the colours of one frame, taken from the theme.
type ganttPalette struct {
	bg, stripe, child, ruler, grid, fg, faint, sel, hover, now color.RGBA
}

func newGanttPalette() ganttPalette {
	bg := toRGBA(theme.Color(theme.ColorNameBackground))
	fg := toRGBA(theme.Color(theme.ColorNameForeground))
	return ganttPalette{
		bg:     bg,
		fg:     fg,
		stripe: mix(bg, fg, 0.03),
		child:  mix(bg, KindColor(recorder.KindTool), 0.07),
		ruler:  mix(bg, fg, 0.07),
		grid:   mix(bg, fg, 0.12),
		faint:  mix(bg, fg, 0.45),
		sel:    mix(bg, toRGBA(theme.Color(theme.ColorNamePrimary)), 0.25),
		hover:  mix(bg, fg, 0.16),
		now:    toRGBA(theme.Color(theme.ColorNamePrimary)),
	}
}
