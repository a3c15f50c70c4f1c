package timeline

import (
	"image/color"

	"fyne.io/fyne/v2/theme"
	"github.com/fanout-inspector/inspector/recorder"
)

// Kind colours: one hue per kind, readable on light and dark themes.
var kindColors = map[recorder.Kind]color.RGBA{
	recorder.KindSampling:    {59, 130, 246, 255},  // blue
	recorder.KindElicitation: {168, 85, 247, 255},  // purple
	recorder.KindRoots:       {20, 184, 166, 255},  // teal
	recorder.KindPing:        {245, 158, 11, 255},  // amber
	recorder.KindTool:        {100, 116, 139, 255}, // slate
	recorder.KindRound:       {71, 85, 105, 255},   // dark slate: a wire round of a tool call
	recorder.KindOther:       {168, 162, 158, 255}, // stone
}

// LegendKinds is the order of kinds in legends.
var LegendKinds = []recorder.Kind{
	recorder.KindTool, recorder.KindRound, recorder.KindSampling, recorder.KindElicitation,
	recorder.KindRoots, recorder.KindPing, recorder.KindOther,
}

// FailColor outlines a request that failed; inFlightColor and pendingColor
// are the chart's two lines.
var (
	FailColor     = color.RGBA{220, 38, 38, 255}
	inFlightColor = color.RGBA{96, 165, 250, 255}
	pendingColor  = color.RGBA{251, 146, 60, 255}
)

// KindColor is the colour of requests of kind k.
func KindColor(k recorder.Kind) color.RGBA {
	if c, ok := kindColors[k]; ok {
		return c
	}
	return kindColors[recorder.KindOther]
}

// EventColor is the colour of a notification's tick.
func EventColor(k recorder.EventKind) color.RGBA {
	switch k {
	case recorder.EventProgress:
		return color.RGBA{22, 163, 74, 255}
	case recorder.EventCancelled:
		return FailColor
	case recorder.EventConnection:
		return color.RGBA{234, 88, 12, 255}
	case recorder.EventListChanged:
		return color.RGBA{8, 145, 178, 255}
	}
	return color.RGBA{120, 113, 108, 255}
}

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
	return mix(toRGBA(theme.Color(theme.ColorNameBackground)), KindColor(k), 0.35)
}

// mix returns a blended with b: t = 0 gives a, t = 1 gives b.
func mix(a, b color.RGBA, t float64) color.RGBA {
	f := func(x, y uint8) uint8 { return uint8(float64(x) + (float64(y)-float64(x))*t + 0.5) }
	return color.RGBA{f(a.R, b.R), f(a.G, b.G), f(a.B, b.B), 255}
}

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
		child:  mix(bg, kindColors[recorder.KindTool], 0.07),
		ruler:  mix(bg, fg, 0.07),
		grid:   mix(bg, fg, 0.12),
		faint:  mix(bg, fg, 0.45),
		sel:    mix(bg, toRGBA(theme.Color(theme.ColorNamePrimary)), 0.25),
		hover:  mix(bg, fg, 0.16),
		now:    toRGBA(theme.Color(theme.ColorNamePrimary)),
	}
}
